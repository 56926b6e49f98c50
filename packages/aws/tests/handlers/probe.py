"""A test handler whose behaviour each message's body picks (``action``).

It writes down what it saw in the module-level ``SEEN`` list, which the tests read
through the platform's handler; a real handler would not keep such state.
"""

import json
import time
import uuid

import boto3
from botocore.exceptions import ClientError

client = boto3.client("dynamodb")
table = boto3.resource("dynamodb").Table("items")
SEEN = []


def handler(event, context):
    record = event["Records"][0]
    body = json.loads(record["body"])
    seen = {
        "event": event,
        "request_id": context.aws_request_id,
        "remaining_ms": context.get_remaining_time_in_millis(),
        "time": time.time(),
    }
    SEEN.append(seen)
    action = body.get("action", "put")
    try:
        if action == "put":
            table.put_item(
                Item={"id": body["id"], "n": 2, "blob": b"\x00\x01", "tags": {"b", "a"}, "token": str(uuid.uuid4())}
            )
            seen["after_put_remaining_ms"] = context.get_remaining_time_in_millis()
        elif action == "fail":
            raise RuntimeError("the handler failed")
        elif action == "report":
            return {"batchItemFailures": [{"itemIdentifier": record["messageId"]}]}
        elif action == "sqs":
            boto3.client("sqs").send_message(QueueUrl="https://sqs.us-east-1.amazonaws.com/000000000000/q", MessageBody="x")
        elif action == "create":
            client.create_table(
                TableName="other",
                KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                BillingMode="PAY_PER_REQUEST",
            )
        elif action == "transact":
            client.transact_write_items(
                TransactItems=[
                    {"Put": {"TableName": "items", "Item": {"id": {"S": body["id"]}}}},
                    {"Put": {"TableName": "audit", "Item": {"id": {"S": body["id"]}}}},
                ]
            )
        elif action == "conditional":
            client.put_item(
                TableName="items",
                Item={"id": {"S": body["id"]}},
                ConditionExpression="attribute_not_exists(id)",
            )
        elif action == "batch":
            with table.batch_writer() as writer:
                for index in range(3):
                    writer.put_item(Item={"id": f"{body['id']}-{index}"})
        elif action == "describe":
            seen["status"] = client.describe_table(TableName="items")["Table"]["TableStatus"]
        elif action == "get":
            seen["item"] = table.get_item(Key={"id": body["id"]}).get("Item")
    except ClientError as error:
        seen["error"] = error.response["Error"]["Code"]
        raise
    except Exception as error:
        seen["error"] = type(error).__name__
        raise
    return {}
