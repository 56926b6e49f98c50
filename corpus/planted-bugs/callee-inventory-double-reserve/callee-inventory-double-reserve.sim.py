"""A planted bug: an order Worker whose inventory callee reserves twice when the order Worker calls again.

The order Worker reserves stock with the inventory Worker over a service binding, which runs
for real here (callee): its own D1 database is inventory/DB. reserve() is not idempotent: when
the reservation was written and the answer lost (the call's ambiguous outcome), the order
Worker calls again and a second reservation is made; the order records only the second, and
the first holds stock no order has. The invariant spans both Workers' databases: every
reservation in inventory/DB is one an order in DB holds. The checker must find it (VIOLATED,
every-reservation-has-its-order) with one fault.
"""

from eutaxy.cloudflare import callee, d1_rows, d1_schema, define_scenario, http, references

orders = http(
    [
        {"method": "POST", "path": "/orders", "body": {"orderId": "o-1", "sku": "widget", "qty": 2}},
        {"method": "POST", "path": "/orders", "body": {"orderId": "o-2", "sku": "widget", "qty": 1}},
    ],
    retries=1,
    retry_on="non-2xx",
)

scenario = define_scenario(
    name="callee-inventory-double-reserve",
    worker={"entry": "./orders/worker.ts", "config": "./orders/wrangler.jsonc"},
    setup=[
        callee("INVENTORY", config="./inventory/wrangler.jsonc"),
        d1_schema("DB", "./orders/schema.sql"),
        d1_schema("inventory/DB", "./inventory/schema.sql"),
    ],
    drive=orders,
    invariants=[
        references(
            "every-reservation-has-its-order",
            d1_rows("inventory/DB", "reservations"), "reservation_id",
            d1_rows("DB", "orders"), "reservation_id",
        ),
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 1, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
