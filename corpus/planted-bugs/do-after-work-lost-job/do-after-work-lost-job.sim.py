"""A planted bug: a Durable Object accepts a job and records it in work after its answer, where a crash loses it.

The object answers "accepted" and writes the job in a timer of its own, which runs after the
answer as DO:RUNNER/runner/after. A crash there (crash_before at the write) resets the object;
the caller already got its 202 and never resends. The checker must find it (VIOLATED,
every-accepted-job-recorded) with one fault.
"""

from eutaxy.cloudflare import at_least_once_per_message, d1_param, d1_schema, d1_write, define_scenario, durable_object, http

jobs = http(
    [
        {"method": "POST", "path": "/jobs", "body": {"jobId": "j-1", "task": "resize"}},
        {"method": "POST", "path": "/jobs", "body": {"jobId": "j-2", "task": "encode"}},
    ],
    retries=3,
    retry_on="non-2xx",
)

scenario = define_scenario(
    name="do-after-work-lost-job",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql"), durable_object("RUNNER")],
    drive=jobs,
    invariants=[at_least_once_per_message("every-accepted-job-recorded", jobs, d1_write("DB"), d1_param(0), "jobId")],
    bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
)
