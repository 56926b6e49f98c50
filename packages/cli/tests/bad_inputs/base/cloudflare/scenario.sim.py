"""The corpus's good scenario: each case changes one thing in it (or in the files beside it)."""

from eutaxy.cloudflare import at_most_once_per_key, d1_param, d1_rows, d1_schema, d1_write, define_scenario, queue, unique

payments = queue("payments", [{"body": {"orderId": "o-1", "amountCents": 1200}}])

scenario = define_scenario(
    name="bad-inputs",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=payments,
    invariants=[
        at_most_once_per_key("one-write-per-order", d1_write("DB"), d1_param(0)),
        unique("one-row-per-order", d1_rows("DB", "payments"), "order_id"),
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 1, "budgetMs": 60000},
)
