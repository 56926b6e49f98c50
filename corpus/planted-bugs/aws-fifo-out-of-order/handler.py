"""A FIFO orders consumer: it forwards each customer's orders, in order, to the shipments queue.

Planted bug: a send that fails is reported as a batch item failure, and the loop goes on
with the batch's next record. When the first of a customer's two orders fails to forward,
the second is forwarded at once, and the first only on its redelivery: the shipments
queue gets the customer's orders in the wrong order, though each came in FIFO order.
"""

import json

import boto3
from botocore.exceptions import ClientError

sqs = boto3.client("sqs")
SHIPMENTS = "https://sqs.us-east-1.amazonaws.com/000000000000/shipments.fifo"


def handler(event, context):
    failures = []
    for record in event["Records"]:
        order = json.loads(record["body"])
        try:
            sqs.send_message(
                QueueUrl=SHIPMENTS,
                MessageBody=json.dumps(order),
                MessageGroupId=order["customer"],
                MessageDeduplicationId=order["orderId"],
            )
        except ClientError:
            failures.append({"itemIdentifier": record["messageId"]})
    return {"batchItemFailures": failures}
