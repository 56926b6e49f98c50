"""A planted bug: a Durable Object alarm that charges a payment and is retried after a crash, charging twice.

The alarm's charge commits, then the object dies before it deletes the order (crash_after at
the charge); Cloudflare retries the failed alarm, which finds the order still stored and
charges it again. The checker must find it (VIOLATED, charged-once-per-order) with one fault.
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
