"""A payments consumer whose per-order work is made idempotent with a Powertools-style decorator.

Planted bug: inside the idempotent function the ledger entry is keyed by a fresh uuid4. When
the put commits but its answer is lost (a timeout), the function raises, the idempotency
record is deleted, and the redelivery (after the visibility timeout) runs the function again:
a second ledger entry for the order. The idempotency record protects a completed run, not a
write inside a failed one.
"""

import json
import uuid

import boto3

from idempotency import idempotent

ledger = boto3.resource("dynamodb").Table("ledger")


@idempotent("orderId")
def record_payment(order, context):
    ledger.put_item(Item={"entry_id": str(uuid.uuid4()), "order_id": order["orderId"], "amount_cents": order["amountCents"]})
    return {"recorded": order["orderId"]}


def handler(event, context):
    for record in event["Records"]:
        record_payment(json.loads(record["body"]), context)
    return {}
