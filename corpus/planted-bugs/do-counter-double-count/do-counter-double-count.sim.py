"""A planted bug: a Durable Object counter whose ambiguous stub call is retried without an idempotency key.

The object runs record() and the answer is lost; the Worker sees a retryable error, calls
again, and the object records the same visit a second time. The checker must find it
(VIOLATED, each-visit-counted-once) with one fault: ambiguous at the stub call.
"""

from eutaxy.cloudflare import define_scenario, durable_object, durable_object_table, http, unique

scenario = define_scenario(
    name="do-counter-double-count",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[
        durable_object(
            "COUNTER",
            {"site": {"count": 0}},
            sql={"site": {"schema": "CREATE TABLE hits (visit TEXT NOT NULL)", "rows": {"hits": []}}},
        )
    ],
    drive=http([{"method": "POST", "path": "/visits", "body": {"visit": "v-1"}}, {"method": "POST", "path": "/visits", "body": {"visit": "v-2"}}]),
    invariants=[unique("each-visit-counted-once", durable_object_table("COUNTER", "site", "hits"), "visit")],
    bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
)
