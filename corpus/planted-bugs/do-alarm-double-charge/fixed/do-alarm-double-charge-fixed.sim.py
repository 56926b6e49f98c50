"""The fixed twin of do-alarm-double-charge: the order id is the charge's idempotency key.

A retried alarm inserts nothing new (the primary key, INSERT OR IGNORE), so the same scenario
must stay BOUNDED.
"""

from eutaxy.cloudflare import at_most_once_per_key, d1_param, d1_schema, d1_write, define_scenario, durable_object, http

scenario = define_scenario(
    name="do-alarm-double-charge",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql"), durable_object("BILLING")],
    drive=http(
        [
            {"method": "POST", "path": "/orders", "body": {"orderId": "o-1", "cents": 1200}},
            {"method": "POST", "path": "/orders", "body": {"orderId": "o-2", "cents": 500}},
        ]
    ),
    invariants=[at_most_once_per_key("charged-once-per-order", d1_write("DB"), d1_param(0))],
    bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
)
