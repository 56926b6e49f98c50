"""The fixed twin of upload-quota-overshoot: the quota check and the insert are one statement.

D1 runs a statement whole, so no other upload comes between the sum and the insert; an
upload that would pass the quota changes nothing and is answered 413: BOUNDED.
"""

from eutaxy.cloudflare import aggregate, d1_rows, d1_schema, define_scenario, http

QUOTA_BYTES = 5 * 1024**3

scenario = define_scenario(
    name="upload-quota-overshoot-fixed",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=http(
        [
            {"method": "POST", "path": "/uploads", "body": {"id": "d-1", "size": 2 * 1024**3}},
            {"method": "POST", "path": "/uploads", "body": {"id": "d-2", "size": 2 * 1024**3}},
        ],
        retries=0,
    ),
    invariants=[aggregate("under-quota", d1_rows("DB", "documents"), "size", "sum", "lte", QUOTA_BYTES)],
    bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0, "maxConcurrentInvocations": 2, "budgetMs": 5000},
)
