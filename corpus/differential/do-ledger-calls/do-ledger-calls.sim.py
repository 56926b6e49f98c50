"""A differential case: a ledger consumer's Durable Object calls, fault-free, proxied and raw.

Six messages into three seeded accounts (alice with SQL and key-value seeds, bob with a
key-value balance, carol never called): deposits and a withdrawal, a retry on a first
delivery, an overdraft that throws inside the object until it is dead-lettered, and a
balance read through an awaited RPC property. The differential runner runs it once through
Eutaxy's proxies and once with the handler on the raw namespace; every object's storage
(key-value rows and SQL tables, the untouched one included), the D1 audit table and the
per-attempt decisions must agree.
"""

from eutaxy.cloudflare import d1_schema, define_scenario, durable_object, queue

ENTRIES = "CREATE TABLE entries (id INTEGER PRIMARY KEY AUTOINCREMENT, op TEXT NOT NULL, cents INTEGER NOT NULL, balance INTEGER NOT NULL)"

jobs = queue(
    "ledger",
    [
        {"body": {"account": "alice", "op": "deposit", "cents": 500}},
        {"body": {"account": "bob", "op": "withdraw", "cents": 200, "retryFirst": True}},
        {"body": {"account": "bob", "op": "withdraw", "cents": 5000}},
        {"body": {"account": "alice", "op": "withdraw", "cents": 300}},
        {"body": {"account": "alice", "op": "check", "cents": 0}},
        {"body": {"account": "dave", "op": "deposit", "cents": 70}},
    ],
)

scenario = define_scenario(
    name="do-ledger-calls",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[
        d1_schema("DB", "./schema.sql"),
        durable_object(
            "ACCOUNTS",
            {"alice": {"balance": 1000, "last": "open"}, "bob": {"balance": 400}, "carol": {"balance": 7}},
            sql={
                "alice": {"schema": ENTRIES, "rows": {"entries": [{"op": "open", "cents": 1000, "balance": 1000}]}},
                "bob": {"schema": ENTRIES, "rows": {}},
                "carol": {"schema": ENTRIES, "rows": {"entries": [{"op": "open", "cents": 7, "balance": 7}]}},
                "dave": {"schema": ENTRIES, "rows": {}},
            },
        ),
    ],
    drive=jobs,
    bounds={"maxFaultsPerRun": 0, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
