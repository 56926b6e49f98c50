"""The fixed twin of the queue-duplicate-write planted bug: must stay BOUNDED.

The same drive, invariants and bounds as ../queue-duplicate-write.sim.py, on the
Worker whose insert is idempotent per order.
"""

from eutaxy.cloudflare import (
    at_least_once_per_message,
    at_most_once_per_key,
    d1_param,
    d1_schema,
    d1_write,
    define_scenario,
    queue,
)

payments = queue(
    "payments",
    [
        {"body": {"orderId": "o-1", "amountCents": 1200}},
        {"body": {"orderId": "o-2", "amountCents": 500}},
    ],
)

scenario = define_scenario(
    name="queue-duplicate-write-fixed",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=payments,
    invariants=[
        at_most_once_per_key("payment-recorded-once", d1_write("DB"), d1_param(0)),
        at_least_once_per_message("every-payment-recorded", payments, d1_write("DB"), d1_param(0), "orderId"),
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 2, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
