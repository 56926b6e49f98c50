"""The fixed twin of wallet-lost-update: the wallet debits its balance before it awaits the payment network.

The read and the write of the balance have only storage operations between them, which hold
the object's input gate, so a second spend cannot enter between them. It must stay BOUNDED.
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
