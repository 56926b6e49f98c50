"""A planted bug: a Workflow step that is not idempotent runs again after the engine restarts the instance.

The charge step's insert commits, then the instance restarts before the engine persists the
step's result (crash_after at the step's result point); the restart re-runs run() from the start,
finds no persisted result for "charge" and runs the step again, charging the order twice. The
checker must find it (VIOLATED, charged-once-per-order) with one fault.
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
