"""Two customers' orders on a FIFO queue; each order is forwarded to shipments exactly once."""

from eutaxy.aws import (
    at_least_once_per_message,
    at_most_once_per_key,
    define_scenario,
    dynamodb_table,
    handler,
    message,
    sqs,
    sqs_queue,
    sqs_send,
)

orders = sqs(
    "orders.fifo",
    [
        message({"orderId": "o-1"}, group_id="customer-a", deduplication_id="o-1"),
        message({"orderId": "o-2"}, group_id="customer-b", deduplication_id="o-2"),
    ],
)

scenario = define_scenario(
    name="aws-fifo-double-forward",
    handler=handler("./handler.py", "handler"),
    drive=orders,
    setup=[dynamodb_table("orders", "order_id"), sqs_queue("shipments.fifo")],
    invariants=[
        at_most_once_per_key("one-shipment-per-order", sqs_send("shipments.fifo"), "args.body.orderId"),
        at_least_once_per_message("every-order-shipped", orders, sqs_send("shipments.fifo"), "args.body.orderId", "orderId"),
    ],
)
