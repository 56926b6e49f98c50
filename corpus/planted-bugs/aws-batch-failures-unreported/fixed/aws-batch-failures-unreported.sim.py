"""The fixed twin: the same four orders in one batch; a partial failure is reported as
batchItemFailures, so the failed order is delivered again and recorded: BOUNDED.
"""

from eutaxy.aws import at_least_once_per_message, define_scenario, dynamodb_table, dynamodb_write, handler, sqs

orders = sqs(
    "orders",
    [
        {"orderId": "o-1", "amountCents": 1200},
        {"orderId": "o-2", "amountCents": 500},
        {"orderId": "o-3", "amountCents": 700},
        {"orderId": "o-4", "amountCents": 900},
    ],
    max_receive_count=5,
)

scenario = define_scenario(
    name="aws-batch-failures-unreported",
    handler=handler("./handler.py", "handler"),
    drive=orders,
    setup=[dynamodb_table("orders", {"order_id": "HASH"})],
    invariants=[
        at_least_once_per_message("every-order-recorded", orders, dynamodb_write("orders"), "args.Item.order_id", "orderId"),
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 2, "maxConcurrentInvocations": 1},
)
