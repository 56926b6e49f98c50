"""A planted bug: an Agent's scheduled fold marks its entries tallied before it records the tally.

The fold (a schedule over the object's alarm) marks the pending entries tallied, awaits a
ledger call, then records each entry's tally row and adds the sum to the Agent's state. A crash
at the ledger call fails the alarm; the retried fold finds no entry pending, so the accepted
amount is never tallied. The checker must find it (VIOLATED, every-tallied-entry-recorded)
with one fault.
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
