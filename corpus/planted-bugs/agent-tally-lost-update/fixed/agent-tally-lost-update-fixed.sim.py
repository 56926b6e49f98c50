"""The fixed twin of agent-tally-lost-update: the credit reads and writes the total with no await between.

It tells the ledger first, then reads the total and writes it back in one synchronous block,
which no other credit can come between: whatever the order of the two requests' turns, the
total counts both, and the same scenario must stay BOUNDED.
"""

from eutaxy.cloudflare import aggregate, define_scenario, durable_object, durable_object_table, external, http

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
    # The drive accepts 5 and 7: the running total must count both.
    invariants=[aggregate("total-counts-every-entry", durable_object_table("Tally", "t-1", "totals"), "total", "sum", "eq", 12)],
    bounds={"maxFaultsPerRun": 0, "maxConcurrentInvocations": 2, "budgetMs": 60_000},
)
