"""The fixed twin of do-counter-double-count: the visit id is the object's idempotency key.

The same scenario on the fixed Worker, whose table's primary key makes a retried call
record nothing new: it must stay BOUNDED.
"""

from eutaxy.cloudflare import define_scenario, durable_object, durable_object_table, http, unique

scenario = define_scenario(
    name="do-counter-double-count",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[
        durable_object(
            "COUNTER",
            {"site": {"count": 0}},
            sql={"site": {"schema": "CREATE TABLE hits (visit TEXT PRIMARY KEY)", "rows": {"hits": []}}},
        )
    ],
    drive=http([{"method": "POST", "path": "/visits", "body": {"visit": "v-1"}}, {"method": "POST", "path": "/visits", "body": {"visit": "v-2"}}]),
    invariants=[unique("each-visit-counted-once", durable_object_table("COUNTER", "site", "hits"), "visit")],
    bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
)
