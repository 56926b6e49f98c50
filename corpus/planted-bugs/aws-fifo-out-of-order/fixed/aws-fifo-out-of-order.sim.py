"""Two orders of one customer, and one of another, on a FIFO queue; each customer's are forwarded in order."""

from eutaxy.aws import (
    at_least_once_per_message,
    define_scenario,
    handler,
    in_order_per_key,
    message,
    sqs,
    sqs_queue,
    sqs_send,
)

orders = sqs(
    "orders.fifo",
    [
        message({"orderId": "o-1", "customer": "customer-a", "seq": 1}, group_id="customer-a", deduplication_id="o-1"),
        message({"orderId": "o-2", "customer": "customer-a", "seq": 2}, group_id="customer-a", deduplication_id="o-2"),
        message({"orderId": "o-3", "customer": "customer-b", "seq": 1}, group_id="customer-b", deduplication_id="o-3"),
    ],
    batch_size=10,
)

scenario = define_scenario(
    name="aws-fifo-out-of-order",
    handler=handler("./handler.py", "handler"),
    drive=orders,
    setup=[sqs_queue("shipments.fifo")],
    invariants=[
        in_order_per_key("forwarded-in-order", sqs_send("shipments.fifo"), "args.body.customer", "args.body.seq"),
        at_least_once_per_message("every-order-forwarded", orders, sqs_send("shipments.fifo"), "args.body.orderId", "orderId"),
    ],
)
