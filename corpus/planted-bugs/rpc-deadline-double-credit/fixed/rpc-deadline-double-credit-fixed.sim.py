"""The fixed twin of rpc-deadline-double-credit: a credit is written once per transfer.

The entry's transfer id is unique and the insert does nothing for one already credited, so
the resend after the caller's deadline writes nothing (its write changes no row). It must
stay BOUNDED.
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
    name="rpc-deadline-double-credit-fixed",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=credits,
    invariants=[
        at_most_once_per_key("credited-once-per-transfer", d1_write("DB"), d1_param(0)),
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 2, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
