"""A planted bug: an accepted order whose write was left to ctx.waitUntil is lost.

The handler answers 202 and saves the order in background work. The cut_off
fault at the background point ends the invocation while the work's first read
is in flight: the read commits, the write never starts, and the caller, which
got its 2xx, never resends. The checker must find it (VIOLATED,
every-order-recorded) with one fault.
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
    name="background-lost",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=orders,
    invariants=[
        at_least_once_per_message("every-order-recorded", orders, d1_write("DB"), d1_param(0), "orderId"),
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 3, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
