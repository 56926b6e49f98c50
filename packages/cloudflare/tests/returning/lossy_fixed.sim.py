"""Two orders expected by a fixed list; the fixed consumer retries a failed insert."""

from eutaxy.cloudflare import at_least_once, d1_param, d1_schema, d1_write, define_scenario, queue

ENTRY = "./lossy_fixed.ts"

scenario = define_scenario(
    name="lossy-fixed",
    worker={"entry": ENTRY, "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=queue("orders", [{"body": {"orderId": "o-1"}}, {"body": {"orderId": "o-2"}}]),
    invariants=[at_least_once("both-orders-recorded", d1_write("DB"), d1_param(0), ["o-1", "o-2"])],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 1, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
)
