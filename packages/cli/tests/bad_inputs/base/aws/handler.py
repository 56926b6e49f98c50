"""The corpus's good AWS handler: records each order once (a conditional put)."""

import json

import boto3
from botocore.exceptions import ClientError

orders = boto3.resource("dynamodb").Table("orders")


def handler(event, context):
    for record in event["Records"]:
        order = json.loads(record["body"])
        try:
            orders.put_item(
                Item={"order_id": order["orderId"], "amount_cents": order["amountCents"]},
                ConditionExpression="attribute_not_exists(order_id)",
            )
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
    return {}
