"""The KV tally scenario, shared by the planted bug (tally.sim.py) and its fix (tally_fixed.sim.py):
two messages tallied in KV, and the count must end at 2."""

from eutaxy.cloudflare import define_scenario, every_row, kv_namespace, kv_rows, queue


def tally_scenario(*, name: str, entry: str, source: str) -> dict:
    """The scenario for the Worker at ``entry``, written by the ``.sim.py`` at ``source``."""
    return define_scenario(
        name=name,
        source=source,
        worker={"entry": entry, "config": "./wrangler.jsonc"},
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
