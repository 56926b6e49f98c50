"""A differential case: deleteAll() and the alarm, fault-free, proxied (virtual time) and raw (workerd's own).

Three carts: c1 and c3 arm their alarm and then empty themselves with deleteAll(), c2 arms its
alarm and keeps it. At this Worker's compatibility date (2026-03-01) workerd's deleteAll()
deletes the alarm too, so only c2's alarm fires; with wrangler-preserves.jsonc it survives and
every cart's fires. The differential runner runs it once through Eutaxy's proxies, where the
alarms fire in virtual time, and once with the handler on the raw namespace, where workerd
decides; every cart's storage and expiries table and the D1 audit table must agree.
"""

from eutaxy.cloudflare import d1_schema, define_scenario, durable_object, queue

carts = queue(
    "carts",
    [
        {"body": {"cart": "c1", "op": "arm-then-clear", "items": 3}},
        {"body": {"cart": "c2", "op": "arm", "items": 2}},
        {"body": {"cart": "c3", "op": "arm-then-clear", "items": 1}},
    ],
)

scenario = define_scenario(
    name="do-delete-all-alarm",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql"), durable_object("CARTS")],
    drive=carts,
    bounds={"maxFaultsPerRun": 0, "maxConcurrentInvocations": 1, "budgetMs": 5000},
)
