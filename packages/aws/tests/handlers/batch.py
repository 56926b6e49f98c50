"""A batch-aware test handler: each record's body says what to do with it.

It writes what it saw to ``SEEN`` (read by the tests through the platform's handler) and
prints a line per record, which the platform must capture, never pass to stdout.
"""

import json
import logging
import time

import boto3

table = boto3.resource("dynamodb").Table("items")
logger = logging.getLogger("batch-handler")
logger.addHandler(logging.StreamHandler())  # made at import: it holds the replaced stderr
logger.setLevel(logging.INFO)
SEEN = []


def handler(event, context):
    records = event["Records"]
    SEEN.append(
        {
            "ids": [r["messageId"] for r in records],
            "records": records,
            "time_ms": int(time.time() * 1000),
            "remaining_ms": context.get_remaining_time_in_millis(),
            "request_id": context.aws_request_id,
            "function_name": context.function_name,
        }
    )
    failures = []
    for record in records:
        body = json.loads(record["body"])
        print(f"handling {record['messageId']}")
        logger.info("body %s", record["body"])
        action = body.get("action", "put")
        if action == "put":
            table.put_item(Item={"id": body["id"]})
        elif action == "fail":
            raise RuntimeError("the handler failed")
        elif action == "report":
            failures.append({"itemIdentifier": record["messageId"]})
        elif action == "bad-report":
            return {"batchItemFailures": [{"itemIdentifier": "not-in-the-batch"}]}
        elif action == "sleep":
            time.sleep(body["seconds"])
    return {"batchItemFailures": failures}
