"""A differential case: every way a two-message batch decides, proxied and raw.

Batches of two (the drive's batchSize): an explicit ack beside an implicit
one, a retry, a retryAll(), a throw after the first message of the batch was
acked, and a message that always throws until it is dead-lettered. The final
table and the per-attempt decisions must agree between the proxied and the raw
run.
"""

from eutaxy.cloudflare import d1_schema, define_scenario, queue

jobs = {
    **queue(
        "jobs",
        [
            {"body": {"key": "a", "action": "ack"}},
            {"body": {"key": "b", "action": "implicit"}},
            {"body": {"key": "c", "action": "ack"}},
            {"body": {"key": "d", "action": "fail-once"}},
            {"body": {"key": "e", "action": "retry-once"}},
            {"body": {"key": "f", "action": "implicit"}},
            {"body": {"key": "g", "action": "retry-all-once"}},
            {"body": {"key": "h", "action": "fail-always"}},
        ],
    ),
    "batchSize": 2,
}

scenario = define_scenario(
    name="queue-batch-decisions",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=jobs,
    bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 2, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
