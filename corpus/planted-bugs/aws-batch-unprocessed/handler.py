"""An orders consumer that records each order's lines with one BatchWriteItem.

Planted bug: the batch's answer is never read. When DynamoDB writes only part of the
batch and returns the rest in UnprocessedItems, the handler returns success anyway; SQS
deletes the message and the unprocessed lines are never recorded.
"""

import json

import boto3

dynamodb = boto3.client("dynamodb")


def handler(event, context):
    for record in event["Records"]:
        order = json.loads(record["body"])
        requests = [
            {"PutRequest": {"Item": {"order_id": {"S": order["orderId"]}, "line": {"S": line}}}}
            for line in order["lines"]
        ]
        dynamodb.batch_write_item(RequestItems={"order_lines": requests})
    return {}
