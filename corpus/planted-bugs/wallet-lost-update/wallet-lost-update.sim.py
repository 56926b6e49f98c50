"""A planted bug: a wallet Durable Object that awaits the payment network between reading its balance and writing it.

Two spends of 6 and 7 from a balance of 10 enter one object concurrently. Each reads the
balance, then awaits an outbound fetch (its input gate open), then writes the balance less
its amount and records the spend. When the second enters while the first awaits the fetch,
both see 10 and both are recorded: 13 spent from 10. No fault is needed, only the order of
the turns. The checker must find it (VIOLATED, no-overspend).
"""

from eutaxy.cloudflare import aggregate, define_scenario, durable_object, durable_object_table, external, http

SPENDS = {"schema": "CREATE TABLE spends (order_id TEXT NOT NULL, amount INTEGER NOT NULL)", "rows": {"spends": []}}

scenario = define_scenario(
    name="wallet-lost-update",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[durable_object("WALLET", {"alice": {"balance": 10}}, sql={"alice": SPENDS})],
    externals=[external("payments", "payments.example", [{"method": "POST", "path": "/authorize", "status": 200, "body": {"authorized": True}}])],
    drive=http(
        [
            {"method": "POST", "path": "/spend", "body": {"order": "o-1", "amount": 6}},
            {"method": "POST", "path": "/spend", "body": {"order": "o-2", "amount": 7}},
        ],
        retries=0,
    ),
    invariants=[aggregate("no-overspend", durable_object_table("WALLET", "alice", "spends"), "amount", "sum", "lte", 10)],
    bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 2, "budgetMs": 60_000},
)
