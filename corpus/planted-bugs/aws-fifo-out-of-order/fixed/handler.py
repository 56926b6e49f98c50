"""The fixed twin: at the first send that fails, it reports that record and every later one.

AWS asks this of a FIFO consumer that reports batch item failures: stop at the first failure
and return it with all the records not yet processed, so the redelivery brings them back in
their order.
"""

import json

import boto3
from botocore.exceptions import ClientError

sqs = boto3.client("sqs")
SHIPMENTS = "https://sqs.us-east-1.amazonaws.com/000000000000/shipments.fifo"


def handler(event, context):
    records = event["Records"]
    for position, record in enumerate(records):
        order = json.loads(record["body"])
        try:
            sqs.send_message(
                QueueUrl=SHIPMENTS,
                MessageBody=json.dumps(order),
                MessageGroupId=order["customer"],
                MessageDeduplicationId=order["orderId"],
            )
        except ClientError:
            return {"batchItemFailures": [{"itemIdentifier": r["messageId"]} for r in records[position:]]}
    return {"batchItemFailures": []}
