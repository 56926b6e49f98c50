"""The fixed twin of workflow-restart-double-credit: the credit is an idempotent step.

The same scenario on the fixed Worker, whose credit is a step keyed by the user: a restart
replays it and a re-run inserts nothing, so it must stay BOUNDED.
"""

from eutaxy.cloudflare import at_most_once_per_key, d1_param, d1_schema, d1_write, define_scenario, http, workflow

scenario = define_scenario(
    name="workflow-restart-double-credit",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql"), workflow("WELCOME")],
    drive=http([{"method": "POST", "path": "/signups", "body": {"userId": "u-1", "name": "Ada"}}]),
    invariants=[at_most_once_per_key("credited-once-per-user", d1_write("DB"), d1_param(0))],
    bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
)
