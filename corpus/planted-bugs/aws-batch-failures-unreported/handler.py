"""An orders consumer that records each order in DynamoDB, with ReportBatchItemFailures on.

Planted bug: the handler collects the records it could not write, raises when every record
of the batch failed (so Lambda returns the whole batch), and otherwise returns an empty
answer: a partial failure reports no ``batchItemFailures``, so SQS deletes the failed records
with the rest and their orders are never recorded. A batch of one never shows it (its one
failure is a failure of the whole batch); Lambda's default batch of 10 does.
"""

import json
import logging

import boto3
from botocore.exceptions import ClientError

logger = logging.getLogger(__name__)
orders = boto3.resource("dynamodb").Table("orders")


def handler(event, context):
    failures = []
    for record in event["Records"]:
        order = json.loads(record["body"])
        try:
            orders.put_item(Item={"order_id": order["orderId"], "amount_cents": order["amountCents"]})
        except ClientError as error:
            logger.warning("could not record %s: %s", order["orderId"], error)
            failures.append({"itemIdentifier": record["messageId"]})
    if failures and len(failures) == len(event["Records"]):
        raise RuntimeError(f"no order of the batch was recorded ({len(failures)})")
    return {}
