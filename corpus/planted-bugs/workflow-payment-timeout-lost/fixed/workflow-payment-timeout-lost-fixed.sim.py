"""The fixed twin of workflow-payment-timeout-lost: the wait outlasts the provider's resend window.

The same scenario on the fixed Worker, whose wait lasts a day: a resent webhook two hours later
still wakes the instance, so every paid order is recorded and it must stay BOUNDED.
"""

from eutaxy.cloudflare import at_least_once_per_message, d1_param, d1_schema, d1_write, define_scenario, http, workflow

requests = http(
    [
        {"method": "POST", "path": "/orders", "body": {"orderId": "o-1", "paymentRef": "pay-o-1", "cents": 1200}},
        {"method": "POST", "path": "/payments", "body": {"orderId": "o-1", "paymentRef": "pay-o-1", "cents": 1200}, "at_ms": 60_000},
    ],
    # The payment provider (and the shop's front end) resend a request they got no 2xx for, two hours later.
    retries=1,
    delays_ms=[7_200_000],
)

scenario = define_scenario(
    name="workflow-payment-timeout-lost",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql"), workflow("CHECKOUT")],
    drive=requests,
    invariants=[at_least_once_per_message("every-payment-recorded", requests, d1_write("DB"), d1_param(0), "paymentRef")],
    bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
)
