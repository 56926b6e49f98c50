"""The fixed twin of queue-ackall-lost: every payment recorded, whatever D1 answers.

The consumer takes Cloudflare's default batch size (the config sets no max_batch_size),
so the four messages come in one invocation. Each is acknowledged once recorded, and
a failed write retries the rest of the batch: it must stay BOUNDED.
"""

from eutaxy.cloudflare import at_least_once_per_message, d1_param, d1_schema, d1_write, define_scenario, queue

payments = queue(
    "payments",
    [
        {"body": {"orderId": "o-1", "amountCents": 1200}},
        {"body": {"orderId": "o-2", "amountCents": 500}},
        {"body": {"orderId": "o-3", "amountCents": 700}},
        {"body": {"orderId": "o-4", "amountCents": 900}},
    ],
)

scenario = define_scenario(
    name="queue-ackall-lost-fixed",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=payments,
    invariants=[
        at_least_once_per_message("every-payment-recorded", payments, d1_write("DB"), d1_param(0), "orderId"),
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 2, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
