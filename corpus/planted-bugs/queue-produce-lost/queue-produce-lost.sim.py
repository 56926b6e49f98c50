"""A planted bug: an accepted order whose queue send failed is lost.

The intake answers 202 once it has sent the order to its own queue, whose consumer
records it in D1, but it swallows a failed send. An error at the send point leaves
the order unqueued while the caller, which got its 2xx, never resends. Only the
whole path shows it: the row is written by the consumer of the message the intake
produced. The checker must find it (VIOLATED, every-accepted-order-recorded) with
one fault.
"""

from eutaxy.cloudflare import at_least_once_per_message, d1_param, d1_schema, d1_write, define_scenario, http

orders = http(
    [
        {"method": "POST", "path": "/orders", "body": {"orderId": "o-1", "amountCents": 1200}},
        {"method": "POST", "path": "/orders", "body": {"orderId": "o-2", "amountCents": 500}},
    ],
    retries=3,
    retry_on="non-2xx",
)

scenario = define_scenario(
    name="queue-produce-lost",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=orders,
    invariants=[
        at_least_once_per_message("every-accepted-order-recorded", orders, d1_write("DB"), d1_param(0), "orderId"),
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 3, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
