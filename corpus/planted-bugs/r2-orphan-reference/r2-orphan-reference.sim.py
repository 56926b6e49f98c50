"""A planted bug: an upload endpoint whose file record can name an R2 object that does not exist.

The Worker writes the D1 row naming the body's key first and the body to R2
after. One fault between the two (a crash before the put, or the put failing)
leaves the row naming nothing, and the client does not resend. The checker must
find it (VIOLATED, every-file-has-its-body) with one fault: the references
invariant reads the D1 rows and the R2 objects the run ended with.
"""

from eutaxy.cloudflare import d1_rows, d1_schema, define_scenario, http, r2_bucket, r2_rows, references

uploads = http(
    [
        {"method": "POST", "path": "/uploads", "body": {"fileId": "f-1", "text": "first file"}},
        {"method": "POST", "path": "/uploads", "body": {"fileId": "f-2", "text": "second file"}},
    ],
)

scenario = define_scenario(
    name="r2-orphan-reference",
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
