"""The fixed twin of webhook-double-charge: the charge sends an Idempotency-Key.

The payment API is declared to deduplicate by that header, so a resend after
the ambiguous outcome gets the earlier charge back and charges nothing (its
request is recorded as not effective). It must stay BOUNDED.
"""

from eutaxy.cloudflare import at_most_once_per_key, define_scenario, external, fetch_call, http

webhooks = http(
    [
        {"method": "POST", "path": "/webhooks/order-paid", "body": {"orderId": "o-1", "amountCents": 1200}},
        {"method": "POST", "path": "/webhooks/order-paid", "body": {"orderId": "o-2", "amountCents": 500}},
    ],
    retries=3,
    retry_on="non-2xx",
)

payments_api = external(
    "payments-api",
    "api.pay.example",
    responses=[{"method": "POST", "path": "/v1/charges", "status": 200, "body": {"id": "ch_1", "status": "succeeded"}}],
    dedupe_by="Idempotency-Key",
)

scenario = define_scenario(
    name="webhook-double-charge-fixed",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    drive=webhooks,
    externals=[payments_api],
    invariants=[
        at_most_once_per_key("charged-once-per-order", fetch_call("payments-api"), "args.body.orderId"),
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 3, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
