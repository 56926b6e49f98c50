"""Two messages tallied in KV; the fixed consumer writes the count and its seen list in one put."""

from eutaxy.cloudflare import define_scenario, every_row, kv_namespace, kv_rows, queue

ENTRY = "./tally_fixed.ts"

scenario = define_scenario(
    name="kv-tally-fixed",
    worker={"entry": ENTRY, "config": "./wrangler.jsonc"},
    setup=[kv_namespace("KV", {"count": {"value": "0", "metadata": {"seen": []}}})],
    drive=queue("tallies", [{"body": {"id": "o-1"}}, {"body": {"id": "o-2"}}]),
    invariants=[
        every_row(
            "both-messages-counted",
            kv_rows("KV", [{"column": "key", "op": "eq", "value": "count"}]),
            [{"column": "value", "op": "eq", "value": "2"}],
        )
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 2, "maxConcurrentInvocations": 1, "budgetMs": 120_000},
)
