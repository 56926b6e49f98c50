"""Two payment messages; each order gets exactly one ledger entry, and every order gets one.

Default settings: a 30 s visibility timeout over a 3 s function timeout, so a redelivery
comes after the idempotency lock (held to the function's deadline) has expired.
"""

from eutaxy.aws import (
    at_least_once_per_message,
    at_most_once_per_key,
    define_scenario,
    dynamodb_rows,
    dynamodb_table,
    dynamodb_write,
    handler,
    sqs,
    unique,
)

payments = sqs("payments", [{"orderId": "o-1", "amountCents": 1200}, {"orderId": "o-2", "amountCents": 500}])

scenario = define_scenario(
    name="aws-idempotent-inner-write",
    handler=handler("./handler.py", "handler"),
    drive=payments,
    setup=[dynamodb_table("ledger", {"entry_id": "HASH"}), dynamodb_table("idempotency", {"id": "HASH"})],
    invariants=[
        at_most_once_per_key("one-entry-per-order", dynamodb_write("ledger", "PutItem"), "args.Item.order_id"),
        unique("one-ledger-row-per-order", dynamodb_rows("ledger"), "order_id"),
        at_least_once_per_message("every-order-recorded", payments, dynamodb_write("ledger", "PutItem"), "args.Item.order_id", "orderId"),
    ],
)
