"""A differential case: Durable Object alarms, fault-free, proxied (virtual time) and raw (workerd's own).

Five messages into three objects: alice's alarm is armed a day ahead and then replaced by one
a few milliseconds ahead (the label changes with it); bob's is armed a few milliseconds
ahead; carol's is armed a day ahead and then deleted, so it never fires. Each alarm that
fires re-arms itself once. The differential runner runs it once through Eutaxy's proxies,
where the alarms fire in virtual time, and once with the handler on the raw namespace, where
workerd fires them on the real clock and the raw side waits (bounded) for them; every
object's storage and firings table and the D1 audit table must agree.
"""

from eutaxy.cloudflare import d1_schema, define_scenario, durable_object, queue

FIRINGS = "CREATE TABLE firings (id INTEGER PRIMARY KEY AUTOINCREMENT, label TEXT NOT NULL, nth INTEGER NOT NULL, retry INTEGER NOT NULL)"

DAY_MS = 86_400_000

jobs = queue(
    "reminders",
    [
        {"body": {"account": "alice", "op": "arm", "label": "tomorrow", "delayMs": DAY_MS}},
        {"body": {"account": "carol", "op": "arm", "label": "tomorrow", "delayMs": DAY_MS}},
        {"body": {"account": "alice", "op": "arm", "label": "soon", "delayMs": 5}},
        {"body": {"account": "bob", "op": "arm", "label": "soon", "delayMs": 3}},
        {"body": {"account": "carol", "op": "disarm"}},
    ],
)

scenario = define_scenario(
    name="do-alarm-reminders",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[
        d1_schema("DB", "./schema.sql"),
        durable_object(
            "REMINDERS",
            {"alice": {"fired": 0}},
            sql={name: {"schema": FIRINGS, "rows": {}} for name in ("alice", "bob", "carol")},
        ),
    ],
    drive=jobs,
    bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 2, "maxConcurrentInvocations": 1, "budgetMs": 5000},
)
