"""The balances scenario, buggy or fixed: a deposit then a withdrawal; no balance below zero."""

from eutaxy.aws import dynamodb_rows, dynamodb_table, every_row, handler, sqs


def parts(fixed):
    return {
        "handler": handler("./balances.py", "handler", environment={"BALANCES_FIXED": "1" if fixed else "0"}),
        "drive": sqs(
            "transfers",
            [
                {"op": "deposit", "account": "a", "amount": 50, "id": "t1"},
                {"op": "withdraw", "account": "a", "amount": 50, "id": "t2"},
            ],
        ),
        "setup": [dynamodb_table("balances", "account", items=[{"account": "a", "balance": 0}])],
        "invariants": [
            every_row("no-overdraft", dynamodb_rows("balances"), [{"column": "balance", "op": "gte", "value": 0}])
        ],
        "bounds": {"maxFaultsPerRun": 1, "maxRedeliveries": 2},
    }
