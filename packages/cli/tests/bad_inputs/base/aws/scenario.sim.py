"""The corpus's good AWS scenario: each case changes one thing in it."""

from eutaxy.aws import at_most_once_per_key, define_scenario, dynamodb_table, dynamodb_write, handler, sqs

orders = sqs("orders", [{"orderId": "o-1", "amountCents": 1200}])

scenario = define_scenario(
    name="bad-inputs-aws",
    handler=handler("./handler.py", "handler"),
    drive=orders,
    setup=[dynamodb_table("orders", {"order_id": "HASH"})],
    invariants=[at_most_once_per_key("one-put-per-order", dynamodb_write("orders"), "args.Item.order_id")],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 1, "budgetMs": 60000},
)
