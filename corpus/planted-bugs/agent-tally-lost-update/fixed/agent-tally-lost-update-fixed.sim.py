"""The fixed twin of agent-tally-lost-update: the fold records the tally before the ledger call.

The tally rows, the entries' mark and the state change are one synchronous block, so one
atomic write; a crash at the ledger call after it leaves nothing untallied, and the same
scenario must stay BOUNDED.
"""

from eutaxy.cloudflare import define_scenario, durable_object, durable_object_table, external, http, references

scenario = define_scenario(
    name="agent-tally-lost-update",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[durable_object("Tally")],
    externals=[external("ledger", "ledger.example")],
    drive=http(
        [
            {"method": "POST", "path": "/agents/tally/t-1", "body": {"amount": 5}},
            {"method": "POST", "path": "/agents/tally/t-1", "body": {"amount": 7}},
        ]
    ),
    invariants=[
        references(
            "every-tallied-entry-recorded",
            durable_object_table("Tally", "t-1", "entries", where=[{"column": "tallied", "op": "eq", "value": 1}]),
            "id",
            durable_object_table("Tally", "t-1", "tallies"),
            "entry_id",
        )
    ],
    bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
)
