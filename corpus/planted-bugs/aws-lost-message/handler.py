"""An orders consumer that records each order in DynamoDB.

Planted bug: an error from DynamoDB is caught, logged and swallowed, so the handler
returns success; SQS deletes the message and the order is never recorded.
"""

import json
import logging

import boto3
from botocore.exceptions import ClientError

logger = logging.getLogger(__name__)
orders = boto3.resource("dynamodb").Table("orders")


def handler(event, context):
    for record in event["Records"]:
        order = json.loads(record["body"])
        try:
            orders.put_item(Item={"order_id": order["orderId"], "amount_cents": order["amountCents"]})
        except ClientError as error:
            logger.warning("could not record %s: %s", order["orderId"], error)
    return {}
