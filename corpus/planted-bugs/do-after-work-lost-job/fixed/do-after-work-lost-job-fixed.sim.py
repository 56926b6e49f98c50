"""The fixed twin of do-after-work-lost-job: the object records the job before it answers.

Only the follow-up (noting the job) is left to work after the answer, so a crash there loses
nothing the caller was told was accepted, and a crash before the write fails the call, which
the caller resends. The same scenario must stay BOUNDED.
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
