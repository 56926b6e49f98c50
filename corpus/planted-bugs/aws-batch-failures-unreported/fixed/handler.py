"""The fixed twin of aws-batch-failures-unreported: a partial failure reports its records.

The records the handler could not write are returned as ``batchItemFailures``, so SQS
deletes only the records that were recorded and delivers the failed ones again.
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
    return {"batchItemFailures": failures}
