"""Differential case: a ledger's Ledger entrypoint driven over RPC, proxied against raw workerd.

Credits, a debit the balance refuses (a RangeError), a debit whose first call throws and whose
resend succeeds (the caller resends once), a balance read: the proxied rpc drive and the raw
side, which constructs the entrypoint on the real bindings and calls each method, must agree
on every answer, on who was resent and on the ledger's rows.
"""

from eutaxy.cloudflare import at_most_once_per_key, d1_schema, define_scenario, rpc, rpc_response

scenario = define_scenario(
    name="rpc-ledger-calls",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=rpc(
        [
            {"method": "credit", "args": ["alice", 1200]},
            {"method": "debit", "args": ["alice", 5000]},
            {"method": "debitOnSecondTry", "args": ["k-1", "alice", 200]},
            {"method": "balance", "args": ["alice"]},
        ],
        entrypoint="Ledger",
        retries=1,
    ),
    invariants=[at_most_once_per_key("one-answer-per-call", rpc_response("credit", ok=True, entrypoint="Ledger"), "args.callId")],
    bounds={"maxFaultsPerRun": 0, "maxConcurrentInvocations": 1, "budgetMs": 5000},
)
