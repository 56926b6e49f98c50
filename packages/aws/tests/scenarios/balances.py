"""A balances consumer: deposits and withdrawals as conditional DynamoDB ADD updates.

Each transfer id is added to the item's ``applied`` set in the same update, which is
conditional on the id being new, so a redelivery applies nothing twice.

With ``BALANCES_FIXED`` 0 an error from DynamoDB is logged and swallowed, so the message
is deleted and its transfer lost: a lost deposit leaves the later withdrawal overdrawing.
The fixed handler lets the error raise, so the message is received again and applied.
"""

import json
import logging
import os

import boto3
from botocore.exceptions import ClientError

balances = boto3.resource("dynamodb").Table("balances")
FIXED = os.environ.get("BALANCES_FIXED") == "1"


def handler(event, context):
    for record in event["Records"]:
        transfer = json.loads(record["body"])
        delta = transfer["amount"] if transfer["op"] == "deposit" else -transfer["amount"]
        try:
            balances.update_item(
                Key={"account": transfer["account"]},
                UpdateExpression="ADD balance :delta, applied :ids",
                ConditionExpression="NOT contains(applied, :id)",
                ExpressionAttributeValues={":delta": delta, ":ids": {transfer["id"]}, ":id": transfer["id"]},
            )
        except ClientError as error:
            if error.response["Error"]["Code"] == "ConditionalCheckFailedException":
                continue  # applied before
            if FIXED:
                raise
            logging.getLogger(__name__).warning("transfer %s failed", transfer["id"])
    return {}
