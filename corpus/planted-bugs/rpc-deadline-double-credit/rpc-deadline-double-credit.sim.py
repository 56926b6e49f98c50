"""A planted bug: a ledger entrypoint that credits a transfer twice when its caller resends.

The calling Worker waits two seconds for Ledger.credit() to answer and calls again when it
does not hear back. The credit has no idempotency: when the entry was written but the answer
reached the caller past its deadline (the response's ambiguous outcome), the resend writes a
second entry for the same transfer. The checker must find it (VIOLATED,
credited-once-per-transfer) with one fault.
"""

from eutaxy.cloudflare import at_most_once_per_key, d1_param, d1_schema, d1_write, define_scenario, rpc

credits = rpc(
    [
        {"method": "credit", "args": ["t-1", "acct-1", 1200]},
        {"method": "credit", "args": ["t-2", "acct-1", 500]},
    ],
    entrypoint="Ledger",
    retries=2,
    delays_ms=[1000],
    deadline_ms=2000,
)

scenario = define_scenario(
    name="rpc-deadline-double-credit",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=credits,
    invariants=[
        at_most_once_per_key("credited-once-per-transfer", d1_write("DB"), d1_param(0)),
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 2, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
