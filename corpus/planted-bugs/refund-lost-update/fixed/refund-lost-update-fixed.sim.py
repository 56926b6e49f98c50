"""The fixed twin of refund-lost-update: a conditional write, re-read and retried.

The UPDATE only commits while refunded_cents is still what the request read, so
no committed write carries out a decision on stale state: BOUNDED.
"""

from eutaxy.cloudflare import d1_param, d1_read, d1_schema, d1_write, define_scenario, refines
from eutaxy.cloudflare.http import http

scenario = define_scenario(
    name="refund-lost-update-fixed",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=http(
        [
            {"method": "POST", "path": "/refunds", "body": {"orderId": "o-1", "amountCents": 600}},
            {"method": "POST", "path": "/refunds", "body": {"orderId": "o-1", "amountCents": 400}},
        ],
        retries=0,
    ),
    specs=["./domain.ts"],
    invariants=[
        refines(
            "refund-follows-decision",
            "decideRefund",
            d1_write("DB"),
            follows=[{"effect": d1_param(1), "decision": "result.refunded"}],
            state={"read": d1_read("DB"), "write": d1_write("DB"), "key": d1_param(0)},
        ),
    ],
    # No faults: the interleaving alone loses the update.
    bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0, "maxConcurrentInvocations": 2, "budgetMs": 5000},
)
