"""A test handler that reads a variable its function configuration forgot to set.

Every invocation raises ``KeyError`` on the marked line before it writes anything, so the
seeded table never changes and an invariant over it holds in every run.
"""

import json
import os

import boto3

table = boto3.resource("dynamodb").Table("items")


def handler(event, context):
    name = os.environ["ORDERS_TABLE"]  # raises: the scenario sets no ORDERS_TABLE
    for record in event["Records"]:
        table.put_item(Item={"id": json.loads(record["body"])["id"], "table": name})
