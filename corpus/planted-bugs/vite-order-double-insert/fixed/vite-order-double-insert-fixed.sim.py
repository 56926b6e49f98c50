"""The fixed twin of ../vite-order-double-insert.sim.py: the insert is idempotent per order.

The same Vite project, built the same way; order_id is the table's key and the insert does
nothing on a conflict, so a resend after the write committed records nothing more. It must stay
BOUNDED.
"""

from eutaxy.cloudflare import at_most_once_per_key, d1_param, d1_schema, d1_write, define_scenario, http

orders = http(
    [
        {"method": "POST", "path": "/api/orders", "body": {"orderId": "o-1", "amountCents": 1200}},
        {"method": "POST", "path": "/api/orders", "body": {"orderId": "o-2", "amountCents": 500}},
    ],
    retries=2,
    retry_on="non-2xx",
)

scenario = define_scenario(
    name="vite-order-double-insert-fixed",
    # The user's config: the build redirects it to the generated one.
    worker={"config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=orders,
    invariants=[at_most_once_per_key("order-recorded-once", d1_write("DB"), d1_param(0))],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 2, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
