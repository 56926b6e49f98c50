"""The fixed twin: the forward's deduplication id is the order id.

A redelivery's second send comes within SQS's five-minute deduplication interval, so the
shipments queue accepts it and drops it: the order is forwarded once.
"""

import json

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
            MessageDeduplicationId=order["orderId"],
        )
        orders.put_item(Item={"order_id": order["orderId"], "status": "forwarded"})
    return {}
