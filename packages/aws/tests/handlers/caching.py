"""A handler that caches processed order ids at module level, across invocations.

Lambda keeps a warm module, so this cache survives from one run to the next inside the
checker; the module-state check must notice.
"""

import json

import boto3

client = boto3.client("dynamodb")
PROCESSED = set()


def handler(event, context):
    for record in event["Records"]:
        order = json.loads(record["body"])
        if order["orderId"] in PROCESSED:
            continue
        client.put_item(TableName="items", Item={"id": {"S": order["orderId"]}})
        PROCESSED.add(order["orderId"])
    return {}
