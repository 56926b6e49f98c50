"""The lost-order scenario, shared by the planted bug (lossy.sim.py) and its fix (lossy_fixed.sim.py):
two orders expected by a fixed list, both of which must be recorded."""

from eutaxy.cloudflare import at_least_once, d1_param, d1_schema, d1_write, define_scenario, queue


def lossy_scenario(*, name: str, entry: str, source: str) -> dict:
    """The scenario for the Worker at ``entry``, written by the ``.sim.py`` at ``source``."""
    return define_scenario(
        name=name,
        source=source,
        worker={"entry": entry, "config": "./wrangler.jsonc"},
        setup=[d1_schema("DB", "./schema.sql")],
        drive=queue("orders", [{"body": {"orderId": "o-1"}}, {"body": {"orderId": "o-2"}}]),
        invariants=[at_least_once("both-orders-recorded", d1_write("DB"), d1_param(0), ["o-1", "o-2"])],
        bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 1, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )
