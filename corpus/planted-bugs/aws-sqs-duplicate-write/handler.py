"""A payments consumer that records a ledger entry per order message.

Planted bug: the ledger entry's key is a fresh uuid4, so when SQS delivers the message
again after the PutItem committed (the invocation crashed, or timed out, after the write),
the redelivery writes a second entry for the same order.
"""

import json
import uuid

import boto3

# Built at module scope, as Lambda code does; Eutaxy routes its calls to the local DynamoDB.
dynamodb = boto3.client("dynamodb")


def handler(event, context):
    for record in event["Records"]:
        order = json.loads(record["body"])
        dynamodb.put_item(
            TableName="ledger",
            Item={
                "entry_id": {"S": str(uuid.uuid4())},
                "order_id": {"S": order["orderId"]},
                "amount_cents": {"N": str(order["amountCents"])},
            },
        )
        dynamodb.update_item(
            TableName="orders",
            Key={"order_id": {"S": order["orderId"]}},
            UpdateExpression="SET #s = :paid",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={":paid": {"S": "paid"}},
        )
    return {"batchItemFailures": []}
