"""A ledger consumer for the regression-test tests: the entry key is a fresh uuid4 unless fixed."""

import json
import os
import uuid

import boto3

dynamodb = boto3.client("dynamodb")
FIXED = os.environ.get("LEDGER_FIXED") == "1"


def handler(event, context):
    for record in event["Records"]:
        order = json.loads(record["body"])
        entry = order["orderId"] if FIXED else str(uuid.uuid4())
        try:
            dynamodb.put_item(
                TableName="ledger",
                Item={"entry_id": {"S": entry}, "order_id": {"S": order["orderId"]}},
                ConditionExpression="attribute_not_exists(entry_id)",
            )
        except dynamodb.exceptions.ConditionalCheckFailedException:
            pass
    return {}
