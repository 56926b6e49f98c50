"""A planted bug: a Workflow that writes outside its steps, repeated by a restart.

The welcome credit is inserted by run() itself, outside any step. When the engine restarts the
instance after the credit (a crash before the "load profile" or "send welcome" step runs, or
before its result is persisted), run() starts again from the top and inserts the credit a second
time. The checker must find it (VIOLATED, credited-once-per-user) with one fault.
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
