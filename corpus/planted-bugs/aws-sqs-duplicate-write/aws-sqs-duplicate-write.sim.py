"""Two payment messages; every order must have exactly one ledger entry, whatever SQS redelivers."""

from eutaxy.aws import (
    at_most_once_per_key,
    define_scenario,
    dynamodb_rows,
    dynamodb_table,
    dynamodb_write,
    handler,
    sqs,
    unique,
)

payments = sqs(
    "payments",
    [{"orderId": "o-1", "amountCents": 1200}, {"orderId": "o-2", "amountCents": 500}],
    max_receive_count=5,
)

scenario = define_scenario(
    name="aws-sqs-duplicate-write",
    handler=handler("./handler.py", "handler"),
    drive=payments,
    setup=[
        dynamodb_table("ledger", {"entry_id": "HASH"}),
        dynamodb_table("orders", {"order_id": "HASH"}, items=[{"order_id": "o-1", "status": "new"}, {"order_id": "o-2", "status": "new"}]),
    ],
    invariants=[
        at_most_once_per_key("ledger-entry-once-per-order", dynamodb_write("ledger", "PutItem"), "args.Item.order_id"),
        unique("one-ledger-row-per-order", dynamodb_rows("ledger"), "order_id"),
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 2, "maxConcurrentInvocations": 1},
)
