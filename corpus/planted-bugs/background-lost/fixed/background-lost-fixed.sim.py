"""The fixed twin of background-lost: the order is written before the 202.

A failed or cut write now reaches the caller (no answer, or a 500), which
resends until the order is recorded. It must stay BOUNDED.
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
    name="background-lost-fixed",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=orders,
    invariants=[
        at_least_once_per_message("every-order-recorded", orders, d1_write("DB"), d1_param(0), "orderId"),
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 3, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
