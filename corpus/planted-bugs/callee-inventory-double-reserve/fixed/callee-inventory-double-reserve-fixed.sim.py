"""The fixed twin of callee-inventory-double-reserve: the inventory callee's reserve() is idempotent per order.

The same order Worker (../orders) calls the fixed inventory Worker: a resent reserve() inserts
no second reservation and answers the first one's id, so every reservation is the one its
order holds, whatever fault strikes and whoever calls again. The checker must stay BOUNDED.
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
    name="callee-inventory-double-reserve-fixed",
    worker={"entry": "../orders/worker.ts", "config": "../orders/wrangler.jsonc"},
    setup=[
        callee("INVENTORY", config="./inventory/wrangler.jsonc"),
        d1_schema("DB", "../orders/schema.sql"),
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
