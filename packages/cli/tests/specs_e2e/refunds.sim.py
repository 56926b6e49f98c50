"""Two refunds of two orders, one at a time: the scenario holds, and its core has specs.

``eutaxy check`` runs the spec ladder on the calls this scenario makes into domain.ts:
the second request's 45-character reference refutes ``shortReferences`` at CHECKED,
which no drawn input does, while the simulation verdict stays BOUNDED.
"""

from eutaxy.cloudflare import at_most_once_per_key, d1_schema, d1_write, define_scenario
from eutaxy.cloudflare.http import http

scenario = define_scenario(
    name="specs-e2e",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=http(
        [
            {"method": "POST", "path": "/refunds",
             "body": {"orderId": "o-1", "amountCents": 600, "reference": "\u2277" + "r" * 39}},
            {"method": "POST", "path": "/refunds",
             "body": {"orderId": "o-2", "amountCents": 400, "reference": "s" * 45}},
        ],
        retries=0,
    ),
    specs=["./domain.ts"],
    invariants=[at_most_once_per_key("one-refund-write-per-order", d1_write("DB"), "args.params.0")],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 120000},
)
