"""A differential case: alarms set inside transactions that roll back, fault-free, proxied and raw.

Seven rooms: each holds itself inside a transaction that sets the releasing alarm, through
the storage's setAlarm, the transaction's, or inside transactionSync(); the abandoned holds
throw (or call rollback()), which rolls the alarm back with them, and one room's earlier
alarm must survive its rolled-back change. The differential runner runs it once through
Eutaxy's proxies, where the alarms fire in virtual time, and once with the handler on the raw
namespace, where workerd decides; every room's storage and tables and the D1 audit table
must agree.
"""

from eutaxy.cloudflare import d1_schema, define_scenario, durable_object, queue

bookings = queue(
    "bookings",
    [
        {"body": {"room": "r1", "way": "storage", "abandon": True}},
        {"body": {"room": "r2", "way": "transaction", "abandon": True}},
        {"body": {"room": "r3", "way": "sync", "abandon": True}},
        {"body": {"room": "r4", "way": "rollback", "abandon": True}},
        {"body": {"room": "r5", "way": "storage", "abandon": True, "armedBefore": True}},
        {"body": {"room": "r6", "way": "storage", "abandon": False}},
        {"body": {"room": "r7", "way": "sync", "abandon": False}},
    ],
)

scenario = define_scenario(
    name="do-transaction-alarm",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql"), durable_object("ROOMS")],
    drive=bookings,
    bounds={"maxFaultsPerRun": 0, "maxConcurrentInvocations": 1, "budgetMs": 5000},
)
