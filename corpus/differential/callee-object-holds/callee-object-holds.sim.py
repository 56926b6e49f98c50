"""Differential case: a callee's own Durable Object classes, one the caller binds too, proxied against raw workerd.

The shop's Shop entrypoint orders over the rpc drive through its inventory callee, whose
reserve takes a hold in the sku's Hold object (a SQLite-backed class of the inventory's that
reads the inventory's D1 database and REGION var and keeps its holds in SQL) and records every
outcome in its Tally object (a class only the inventory binds, inventory/TALLY). The shop binds
Hold itself (script_name "inventory"): one namespace under the shop's HOLDS, the inventory's
STOCK_HOLDS an alias of it, which the shop reads directly after each order. One order is short
(a RangeError from the object, crossing the inventory to the shop), one names a sku the
inventory does not stock (an UnknownSku of the object's own class). On the proxied side the
inventory and its classes run in the shop's isolate under qualified aliases (inventory.Hold); on
the raw side the inventory is a Worker of its own behind a real service binding, its bindings
on the same classes. Every answer, both Workers' rows and every object's rows must agree.
"""

from eutaxy.cloudflare import at_most_once_per_key, callee, d1_schema, define_scenario, durable_object, rpc, rpc_response

HOLDS = "CREATE TABLE holds (order_id TEXT PRIMARY KEY, qty INTEGER NOT NULL, region TEXT NOT NULL)"

#: The orders, in order: (order id, sku, quantity).
ORDERS = [("o-1", "widget", 2), ("o-2", "widget", 3), ("o-3", "widget", 2), ("o-4", "gadget", 1)]

scenario = define_scenario(
    name="callee-object-holds",
    worker={"entry": "./shop/worker.ts", "config": "./shop/wrangler.jsonc"},
    setup=[
        callee("INVENTORY", config="./inventory/wrangler.jsonc"),
        # The inventory's STOCK_HOLDS is this namespace (an alias): set up once, under the shop's name.
        durable_object(
            "HOLDS",
            {"widget": {"last": "o-0"}},
            sql={
                "widget": {"schema": HOLDS, "rows": {"holds": [{"order_id": "o-0", "qty": 1, "region": "eu"}]}},
                "bolt": {"schema": HOLDS, "rows": {"holds": [{"order_id": "o-00", "qty": 4, "region": "eu"}]}},
            },
        ),
        durable_object("inventory/TALLY"),
        d1_schema("DB", "./shop/schema.sql"),
        d1_schema("inventory/DB", "./inventory/schema.sql"),
    ],
    drive=rpc([{"method": "order", "args": list(order)} for order in ORDERS], entrypoint="Shop"),
    invariants=[at_most_once_per_key("one-answer-per-call", rpc_response("order", ok=True, entrypoint="Shop"), "args.callId")],
    bounds={"maxFaultsPerRun": 0, "maxConcurrentInvocations": 1, "budgetMs": 5000},
)
