"""The ledger scenario, buggy or fixed (the fixed one keys entries by order id)."""

from eutaxy.aws import at_most_once_per_key, dynamodb_table, dynamodb_write, handler, sqs


def parts(fixed):
    return {
        "handler": handler("./ledger.py", "handler", environment={"LEDGER_FIXED": "1" if fixed else "0"}),
        "drive": sqs("payments", [{"orderId": "o-1"}, {"orderId": "o-2"}]),
        "setup": [dynamodb_table("ledger", {"entry_id": "HASH"})],
        "invariants": [at_most_once_per_key("entry-once", dynamodb_write("ledger", "PutItem"), "args.Item.order_id")],
        "bounds": {"maxFaultsPerRun": 1, "maxRedeliveries": 2},
    }
