"""The fixed twin of queue-produce-lost: a failed send is answered 503.

A send that did not happen now reaches the caller, which resends until the order
is queued; the consumer records each order once however often it is delivered. It
must stay BOUNDED.
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
    name="queue-produce-lost-fixed",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=orders,
    invariants=[
        at_least_once_per_message("every-accepted-order-recorded", orders, d1_write("DB"), d1_param(0), "orderId"),
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 3, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
