"""A planted bug in a Worker built by the Cloudflare Vite plugin: an order recorded twice on a resend.

The project is a Vite single-page app and its API Worker; it is checked from its build output
(the generated dist/vite_order_double_insert/wrangler.json, which .wrangler/deploy/config.json
points wrangler at), loaded as its module list, as wrangler deploys it. The insert is not
idempotent: when the INSERT commits but its answer is lost, the handler answers 500, the client
resends, and a second row is recorded for the order. The checker must find it (VIOLATED,
order-recorded-once) with one fault.
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
    name="vite-order-double-insert",
    # The user's config: the build redirects it to the generated one.
    worker={"config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=orders,
    invariants=[at_most_once_per_key("order-recorded-once", d1_write("DB"), d1_param(0))],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 2, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
