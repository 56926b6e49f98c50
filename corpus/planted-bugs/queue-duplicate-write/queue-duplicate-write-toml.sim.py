"""The first planted bug, its Worker configured by wrangler.toml instead of wrangler.jsonc.

The TOML twin of queue-duplicate-write.sim.py: the same Worker, scenario and name, so
with the same seed it must reach the same verdict, byte for byte.

A crash after the INSERT commits and before the ack makes the queue deliver the
message again, and the second delivery inserts a second row for the same order.
The checker must find it (VIOLATED, payment-recorded-once) with one fault.
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
    name="queue-duplicate-write",
    worker={"entry": "./worker.ts", "config": "./wrangler.toml"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=payments,
    invariants=[
        at_most_once_per_key("payment-recorded-once", d1_write("DB"), d1_param(0)),
        at_least_once_per_message("every-payment-recorded", payments, d1_write("DB"), d1_param(0), "orderId"),
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 2, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
