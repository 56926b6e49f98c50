"""A planted bug: an Agent's credit, work after its answer, loses an update under concurrency.

Each request records its entry (this.sql), schedules a report, answers, and leaves its credit
running (ctx.waitUntil): the credit reads the running total, awaits the ledger, then writes the
total it read plus its amount (to its table and its state). With two requests in flight, the
second enters the Agent while the first's credit awaits the ledger (the input gate is open), so
both credits read 0 and the total ends 5 or 7, not 12. The checker must find it (VIOLATED,
total-counts-every-entry) by the order of turns alone, with no fault.
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
