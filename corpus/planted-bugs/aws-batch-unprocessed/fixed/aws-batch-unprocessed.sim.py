"""The fixed twin: two order messages of two lines each; every line of every order must end up recorded."""

from eutaxy.aws import aggregate, define_scenario, dynamodb_rows, dynamodb_table, handler, sqs

orders = sqs(
    "orders",
    [{"orderId": "o-1", "lines": ["apple", "pear"]}, {"orderId": "o-2", "lines": ["plum", "fig"]}],
    max_receive_count=5,
)

scenario = define_scenario(
    name="aws-batch-unprocessed",
    handler=handler("./handler.py", "handler"),
    drive=orders,
    setup=[dynamodb_table("order_lines", {"order_id": "HASH", "line": "RANGE"})],
    invariants=[
        aggregate("every-line-recorded", dynamodb_rows("order_lines"), "line", "count", "eq", 2, group_by="order_id"),
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 2, "maxConcurrentInvocations": 1},
)
