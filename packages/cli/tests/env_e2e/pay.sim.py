"""The payments consumer checked as its staging environment (eutaxy check --env staging)."""

from eutaxy.cloudflare import at_most_once_per_key, d1_param, d1_schema, d1_write, define_scenario, queue

scenario = define_scenario(
    name="pay",
    worker={"config": "./wrangler.toml"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=queue("payments", [{"body": {"orderId": "o-1", "amountCents": 1200}}]),
    invariants=[at_most_once_per_key("payment-recorded-once", d1_write("DB"), d1_param(0))],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 2, "maxConcurrentInvocations": 1, "budgetMs": 120000},
)
