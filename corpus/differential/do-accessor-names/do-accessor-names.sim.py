"""A differential case: a class with members named state, instance, objectEnv and user, proxied and raw.

Six messages into two profiles: visits through `user(name)`, reads of the `state` accessor
(backed by the object's SQLite storage, as the Agents SDK's Agent keeps its state) and the
`instance` getter, and `objectEnv()`. The differential runner runs it once through Eutaxy's
proxies, where the class runs inside Eutaxy's wrapper, and once with the handler on the raw
namespace; every profile's storage and the D1 table of the answers must agree.
"""

from eutaxy.cloudflare import d1_schema, define_scenario, durable_object, queue

visits = queue(
    "visits",
    [
        {"body": {"profile": "p1", "member": "user", "name": "ann"}},
        {"body": {"profile": "p1", "member": "user", "name": "bo"}},
        {"body": {"profile": "p1", "member": "state"}},
        {"body": {"profile": "p2", "member": "instance"}},
        {"body": {"profile": "p2", "member": "objectEnv"}},
        {"body": {"profile": "p2", "member": "user", "name": "cy"}},
    ],
)

scenario = define_scenario(
    name="do-accessor-names",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql"), durable_object("PROFILES")],
    drive=visits,
    bounds={"maxFaultsPerRun": 0, "maxConcurrentInvocations": 1, "budgetMs": 5000},
)
