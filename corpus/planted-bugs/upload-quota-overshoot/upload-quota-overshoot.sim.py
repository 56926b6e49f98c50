"""The quota overshoot: two concurrent 2 GiB uploads into a catalogue holding 2 of its 5 GiB, no faults.

Each request sums the catalogue's sizes, finds room, and inserts its row. When both sums
come before either insert, both uploads are accepted and the catalogue holds 6 GiB.
``aggregate`` says what must hold of the state: the sum of ``size`` over the documents
stays within the quota.
"""

from eutaxy.cloudflare import aggregate, d1_rows, d1_schema, define_scenario, http

QUOTA_BYTES = 5 * 1024**3

scenario = define_scenario(
    name="upload-quota-overshoot",
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
    # No faults: the interleaving alone overshoots the quota.
    bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0, "maxConcurrentInvocations": 2, "budgetMs": 5000},
)
