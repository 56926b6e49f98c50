"""The fixed twin of queue-batch-of-one: each order charged once, however the messages are grouped.

The same four charges, the last a second message for the first order, and one short batch
per run explored (maxShortBatches 1); every batch checks whether the order was charged
before, so it must stay BOUNDED.
"""

from eutaxy.cloudflare import at_most_once_per_key, d1_param, d1_schema, d1_write, define_scenario, queue

charges = queue(
    "charges",
    [
        {"body": {"orderId": "o-1", "amountCents": 1200}},
        {"body": {"orderId": "o-2", "amountCents": 500}},
        {"body": {"orderId": "o-3", "amountCents": 700}},
        {"body": {"orderId": "o-1", "amountCents": 1200}},
    ],
)

scenario = define_scenario(
    name="queue-batch-of-one-fixed",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=charges,
    invariants=[
        at_most_once_per_key("order-charged-once", d1_write("DB"), d1_param(1)),
    ],
    bounds={"maxFaultsPerRun": 1, "maxShortBatches": 1, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
