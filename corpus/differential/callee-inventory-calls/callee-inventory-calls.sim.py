"""Differential case: a shop entrypoint calling its inventory callee, proxied against raw workerd.

Orders that reserve stock, one refused for want of it (a RangeError the inventory throws), one
for a sku it does not stock (an UnknownSku, an error class of the inventory's own with a code),
each recorded by the shop as it arrives (name, message, remote, code), over the rpc drive: on the proxied side the inventory runs as
a callee in the shop's isolate (its DB qualified, inventory/DB; each call a Service:INVENTORY
effect hosting its invocation), on the raw side as a Worker of its own that the shop reaches
through a real service binding. Every answer and both Workers' rows must agree.
"""

from eutaxy.cloudflare import at_most_once_per_key, callee, d1_schema, define_scenario, rpc, rpc_response

scenario = define_scenario(
    name="callee-inventory-calls",
    worker={"entry": "./shop/worker.ts", "config": "./shop/wrangler.jsonc"},
    setup=[
        callee("INVENTORY", config="./inventory/wrangler.jsonc"),
        d1_schema("DB", "./shop/schema.sql"),
        d1_schema("inventory/DB", "./inventory/schema.sql"),
    ],
    drive=rpc(
        [
            {"method": "order", "args": ["o-1", "widget", 2]},
            {"method": "order", "args": ["o-2", "widget", 2]},
            {"method": "order", "args": ["o-3", "widget", 1]},
            {"method": "order", "args": ["o-4", "gadget", 1]},
        ],
        entrypoint="Shop",
    ),
    invariants=[at_most_once_per_key("one-answer-per-call", rpc_response("order", ok=True, entrypoint="Shop"), "args.callId")],
    bounds={"maxFaultsPerRun": 0, "maxConcurrentInvocations": 1, "budgetMs": 5000},
)
