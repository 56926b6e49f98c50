"""The fixed twin of workflow-step-double-charge: the order id is the charge's idempotency key.

The same scenario on the fixed Worker, whose charge step inserts nothing when the order's charge
exists, so the step run again after a restart charges once: it must stay BOUNDED.
"""

from eutaxy.cloudflare import at_most_once_per_key, d1_param, d1_schema, d1_write, define_scenario, http, workflow

scenario = define_scenario(
    name="workflow-step-double-charge",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql"), workflow("PAYMENT")],
    drive=http([{"method": "POST", "path": "/orders", "body": {"orderId": "o-1", "cents": 1200}}]),
    invariants=[at_most_once_per_key("charged-once-per-order", d1_write("DB"), d1_param(0))],
    bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
)
