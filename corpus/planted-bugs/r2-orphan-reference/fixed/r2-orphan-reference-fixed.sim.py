"""The fixed twin of the r2-orphan-reference planted bug: must stay BOUNDED.

The same drive, setup, invariant and bounds as ../r2-orphan-reference.sim.py, on
the Worker that writes the body before the row naming it.
"""

from eutaxy.cloudflare import d1_rows, d1_schema, define_scenario, http, r2_bucket, r2_rows, references

uploads = http(
    [
        {"method": "POST", "path": "/uploads", "body": {"fileId": "f-1", "text": "first file"}},
        {"method": "POST", "path": "/uploads", "body": {"fileId": "f-2", "text": "second file"}},
    ],
)

scenario = define_scenario(
    name="r2-orphan-reference-fixed",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[
        d1_schema("DB", "./schema.sql"),
        r2_bucket("FILES", {"files/f-0": {"body": "hello", "httpMetadata": {"contentType": "text/plain"}}}),
    ],
    drive=uploads,
    invariants=[
        references("every-file-has-its-body", d1_rows("DB", "files"), "r2_key", r2_rows("FILES"), "key"),
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
