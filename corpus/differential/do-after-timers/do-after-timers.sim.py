"""A differential case: timers after the answer, fault-free, proxied (virtual time) and raw (workerd's own).

Five jobs into two runners (Durable Objects): each call answers "accepted" at once and the
object finishes the job afterwards in timers of its own (one timer; a timer arming a second;
a ctx.waitUntil promise awaiting a timer), noting it in its key-value storage, its SQL table
and a D1 audit row. The differential runner runs it once through Eutaxy's proxies, where
that work runs as the object's own invocation in virtual time, and once with the handler on
the raw namespace, where workerd runs the timers on the real clock and the raw side waits
(bounded) for them; every object's storage and table and the D1 audit table must agree.
"""

from eutaxy.cloudflare import d1_schema, define_scenario, durable_object, queue

FINISHED = "CREATE TABLE finished (job TEXT PRIMARY KEY, steps INTEGER NOT NULL)"

jobs = queue(
    "jobs",
    [
        {"body": {"runner": "ada", "job": "j-1", "how": "accept"}},
        {"body": {"runner": "ada", "job": "j-2", "how": "chain"}},
        {"body": {"runner": "bo", "job": "j-3", "how": "waitUntil"}},
        {"body": {"runner": "ada", "job": "j-4", "how": "waitUntil"}},
        {"body": {"runner": "bo", "job": "j-5", "how": "accept"}},
    ],
)

scenario = define_scenario(
    name="do-after-timers",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[
        d1_schema("DB", "./schema.sql"),
        durable_object("RUNNERS", sql={name: {"schema": FINISHED, "rows": {}} for name in ("ada", "bo")}),
    ],
    drive=jobs,
    bounds={"maxFaultsPerRun": 0, "maxConcurrentInvocations": 1, "budgetMs": 5000},
)
