"""A differential case: D1's foreign keys, fault-free, proxied and raw.

The database is seeded with two customers, an order of each and their lines.
Six messages: an order with lines for a seeded customer; an order for a customer
that does not exist (its insert fails: FOREIGN KEY constraint failed, recorded as
a rejection); an order written as one batch whose line names an order that does
not exist (the whole batch fails, so the order is not written either); a
cancelled seeded order (its lines go with it, ON DELETE CASCADE); a forgotten
customer (its orders and their lines go with it); and a line-less order for the
forgotten customer (refused, as the customer is gone). The differential runner
runs it once through Eutaxy's proxies and once with the handler called on the
raw bindings; the final tables and the per-attempt decisions must agree.
"""

from eutaxy.cloudflare import d1_schema, define_scenario, queue

orders = queue(
    "orders",
    [
        {"body": {"op": "order", "customer": "c-1", "order": "o-10", "amountCents": 900, "skus": ["tea", "cup"]}},
        {"body": {"op": "order", "customer": "c-404", "order": "o-11", "amountCents": 100}},
        {"body": {"op": "order-batch", "customer": "c-1", "order": "o-12", "lineOrder": "o-999", "skus": ["pot"]}},
        {"body": {"op": "cancel", "order": "o-1"}},
        {"body": {"op": "forget", "customer": "c-2"}},
        {"body": {"op": "order", "customer": "c-2", "order": "o-13", "amountCents": 300}},
    ],
)

scenario = define_scenario(
    name="queue-d1-foreign-keys",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[
        d1_schema(
            "DB",
            "./schema.sql",
            rows={
                # Lines first: the reset checks foreign keys when it commits, so the order rows are listed in does not matter.
                "order_lines": [
                    {"order_id": "o-1", "line": 0, "sku": "kettle"},
                    {"order_id": "o-2", "line": 0, "sku": "mug"},
                    {"order_id": "o-2", "line": 1, "sku": "spoon"},
                ],
                "customers": [{"id": "c-1", "name": "Ada"}, {"id": "c-2", "name": "Grace"}],
                "orders": [
                    {"id": "o-1", "customer_id": "c-1", "amount_cents": 4000},
                    {"id": "o-2", "customer_id": "c-2", "amount_cents": 1500},
                ],
            },
        )
    ],
    drive=orders,
    bounds={"maxFaultsPerRun": 0, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
