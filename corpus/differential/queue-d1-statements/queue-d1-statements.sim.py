"""A differential case: an orders consumer's D1 statements, fault-free, proxied and raw.

Five messages: two plain orders, one retried on its first delivery, a
duplicate of the first order (its SELECT finds the ledger entry, so no second
one), and a poison message that throws until it is dead-lettered. The
differential runner runs it once through Eutaxy's proxies and once with the
handler called on the raw bindings; the final tables and the per-attempt
decisions must agree.
"""

from eutaxy.cloudflare import d1_schema, define_scenario, queue

orders = queue(
    "orders",
    [
        {"body": {"orderId": "o-1", "amountCents": 1200}},
        {"body": {"orderId": "o-2", "amountCents": 500, "retryFirst": True}},
        {"body": {"orderId": "o-1", "amountCents": 1200}},
        {"body": {"orderId": "o-3", "amountCents": 700, "poison": True}},
        {"body": {"orderId": "o-4", "amountCents": 250}},
    ],
)

scenario = define_scenario(
    name="queue-d1-statements",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=orders,
    bounds={"maxFaultsPerRun": 0, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
