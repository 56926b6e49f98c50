"""A planted bug: an order-paid webhook that charges twice when the shop resends.

The charge request has no idempotency key. An ambiguous outcome (the payment
API committed the charge, the Worker saw a lost connection) makes the handler
answer 500, the shop's webhook resends, and the resend charges again. The
checker must find it (VIOLATED, charged-once-per-order) with one fault.
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
    # The API honours idempotency keys; this Worker just never sends one.
    dedupe_by="Idempotency-Key",
)

scenario = define_scenario(
    name="webhook-double-charge",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    drive=webhooks,
    externals=[payments_api],
    invariants=[
        at_most_once_per_key("charged-once-per-order", fetch_call("payments-api"), "args.body.orderId"),
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 3, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
