"""Four charges, the last a second message for the first order; each order charged once.

The consumer takes Cloudflare's default batch size (the config sets no max_batch_size),
so with every message waiting the four come in one invocation, whose path skips the
duplicate. The scenario explores one short batch per run (maxShortBatches 1): a first
delivery of three leaves the duplicate alone, and the consumer's shortcut for a batch of
one charges its order again. VIOLATED, shrunk to the two messages for that order and a
first delivery of one.
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
    name="queue-batch-of-one",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=charges,
    invariants=[
        at_most_once_per_key("order-charged-once", d1_write("DB"), d1_param(1)),
    ],
    bounds={"maxFaultsPerRun": 1, "maxShortBatches": 1, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
