"""A FIFO orders consumer: it forwards each order to the shipments queue, then marks it forwarded.

Planted bug: the forward's deduplication id is a fresh uuid4. When the write after the send
fails, the handler raises, the message is received again after its visibility timeout, and
the order is forwarded a second time: SQS cannot tell the two sends apart.
"""

import json
import uuid

import boto3

sqs = boto3.client("sqs")
orders = boto3.resource("dynamodb").Table("orders")
SHIPMENTS = "https://sqs.us-east-1.amazonaws.com/000000000000/shipments.fifo"


def handler(event, context):
    for record in event["Records"]:
        order = json.loads(record["body"])
        sqs.send_message(
            QueueUrl=SHIPMENTS,
            MessageBody=json.dumps({"orderId": order["orderId"]}),
            MessageGroupId=record["attributes"]["MessageGroupId"],
            MessageDeduplicationId=str(uuid.uuid4()),
        )
        orders.put_item(Item={"order_id": order["orderId"], "status": "forwarded"})
    return {}
