"""Differential case: a five-minute job's ticks, proxied cron drive against raw workerd.

Four ticks of ``*/5 * * * *``, each logging its attempt in D1: the first succeeds, the second
fails its first attempt and succeeds when run again, the third calls ``noRetry()`` and fails
(never run again), the fourth fails every attempt and is given up after its one re-run. The
proxied cron drive and the raw side, which calls ``scheduled()`` on the real bindings with a
plain controller, must agree on which tick ran again, which was given up and on every row.
"""

from eutaxy.cloudflare import cron, d1_rows, d1_schema, define_scenario, unique

scenario = define_scenario(
    name="cron-tick-reruns",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=cron("*/5 * * * *", ticks=4, retries=1, name="jobs"),
    invariants=[unique("one-done-per-tick", d1_rows("DB", "done"), "scheduled_time")],
    bounds={"maxFaultsPerRun": 0, "maxConcurrentInvocations": 1, "budgetMs": 5000},
)
