"""Check the orders Worker: a client resends on failure; every order is recorded once."""

from eutaxy.cloudflare import (
    at_least_once_per_message,
    d1_param,
    d1_rows,
    d1_schema,
    d1_write,
    define_scenario,
    http,
    unique,
)

orders = http(
    [
        {"method": "POST", "path": "/orders", "headers": {"Idempotency-Key": "k-1"}, "body": {"sku": "widget", "quantity": 2}},
        {"method": "POST", "path": "/orders", "headers": {"Idempotency-Key": "k-2"}, "body": {"sku": "gadget", "quantity": 1}},
    ],
    retries=2,  # a client that resends until it sees a 2xx, twice at most
)

scenario = define_scenario(
    name="orders",
    worker={"entry": "./src/index.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=orders,
    invariants=[
        unique("one-row-per-key", d1_rows("DB", "orders"), "idempotency_key"),
        at_least_once_per_message("every-order-recorded", orders, d1_write("DB"), d1_param(1), "sku"),
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 2, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
