"""An idempotency decorator in the style of Powertools for AWS Lambda (written for this case).

A record per payload key in the ``idempotency`` table: put as INPROGRESS, with a lock that
runs to the function's deadline (``context.get_remaining_time_in_millis()``), and with the
condition that no live record exists; COMPLETED with the answer once the function returns;
deleted when it raises, so a redelivery runs it again. A second call while a live record is
INPROGRESS raises ``AlreadyInProgress``; one that finds it COMPLETED returns the stored answer.
"""

import functools
import json
import time

import boto3
from botocore.exceptions import ClientError

records = boto3.resource("dynamodb").Table("idempotency")
#: How long a COMPLETED record is kept.
EXPIRES_AFTER_S = 3600


class AlreadyInProgress(Exception):
    """Another invocation holds the record's lock."""


def idempotent(key_field):
    def decorate(function):
        @functools.wraps(function)
        def wrapper(payload, context):
            key = f"{function.__module__}.{function.__qualname__}#{payload[key_field]}"
            now_ms = int(time.time() * 1000)
            try:
                records.put_item(
                    Item={
                        "id": key,
                        "status": "INPROGRESS",
                        "expiration": now_ms // 1000 + EXPIRES_AFTER_S,
                        "in_progress_expiry": now_ms + context.get_remaining_time_in_millis(),
                    },
                    ConditionExpression=(
                        "attribute_not_exists(id) OR expiration < :now OR "
                        "(#status = :inprogress AND in_progress_expiry < :now_ms)"
                    ),
                    ExpressionAttributeNames={"#status": "status"},
                    ExpressionAttributeValues={":now": now_ms // 1000, ":now_ms": now_ms, ":inprogress": "INPROGRESS"},
                )
            except ClientError as error:
                if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                    raise
                existing = records.get_item(Key={"id": key}, ConsistentRead=True).get("Item") or {}
                if existing.get("status") == "COMPLETED":
                    return json.loads(existing["data"])
                raise AlreadyInProgress(key) from None
            try:
                answer = function(payload, context)
            except Exception:
                records.delete_item(Key={"id": key})
                raise
            records.update_item(
                Key={"id": key},
                UpdateExpression="SET #status = :done, #data = :data",
                ExpressionAttributeNames={"#status": "status", "#data": "data"},
                ExpressionAttributeValues={":done": "COMPLETED", ":data": json.dumps(answer)},
            )
            return answer

        return wrapper

    return decorate
