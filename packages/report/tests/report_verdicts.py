"""Hand-made verdict data shaped as the contract's "The check API" describes it."""

from __future__ import annotations

import copy

START_MS = 1767225600000

INSERT = "INSERT INTO payments (order_id, amount_cents)\n    VALUES (?, ?)"


def _effect(kind, invocation, ordinal, payload, time, target="D1:DB", op="run"):
    return {
        "target": target,
        "op": op,
        "kind": kind,
        "payload": payload,
        "invocation": invocation,
        "ordinal": ordinal,
        "time": START_MS + time,
    }


def _args():
    return {"sql": INSERT, "params": ["o-1", 1200]}


PROVENANCE = {
    "seed": "queue-duplicate-write",
    "runs": 17,
    "schedules": 12,
    "faultsInjected": 9,
    "bounds": {"maxFaultsPerRun": 1, "maxRedeliveries": 2, "maxConcurrentInvocations": 1, "budgetMs": 2000},
    "boundsReached": ["maxFaultsPerRun", "maxRedeliveries"],
    "schedulePoints": 4,
    "replayed": 1,
    "notReplayed": 0,
    "assumptions": ["code between effects shares no state except through effects", "workerd 1.2026 local"],
}

VIOLATED = {
    "schemaVersion": 1,
    "kind": "violated",
    "scenario": "queue-duplicate-write",
    "platform": "cloudflare",
    "violation": {
        "invariant": "one-payment-per-order",
        "invariantKind": "at_most_once_per_key",
        "keys": ['"o-1"'],
        "effects": [1, 5],
        "rows": [],
        "message": "key \"o-1\" was written 2 times (at most once allowed)",
    },
    "trace": [
        _effect("call", "msg-1#1", 0, {"args": _args()}, 0),
        _effect("result", "msg-1#1", 0, {"args": _args(), "result": {"changes": 1}}, 1),
        _effect("fault", "msg-1#1", 0, {"args": _args(), "fault": "crash_after"}, 1),
        _effect("fault", "msg-1#1", 1, {"args": {}, "fault": "redelivery"}, 2, target="Queue:payments", op="deliver"),
        _effect("call", "msg-1#2", 0, {"args": _args()}, 2),
        _effect("result", "msg-1#2", 0, {"args": _args(), "result": {"changes": 1}}, 3),
        _effect("call", "msg-1#2", 1, {"args": {"id": "msg-1"}}, 3, target="Queue:payments", op="ack"),
        _effect("result", "msg-1#2", 1, {"args": {"id": "msg-1"}, "result": None}, 4, target="Queue:payments", op="ack"),
        _effect("snapshot", "snapshot", 0, {"rows": [{"order_id": "o-1", "amount_cents": 1200, "id": 1},
                                                     {"order_id": "o-1", "amount_cents": 1200, "id": 2}]},
                5, op="payments"),
    ],
    "schedule": {"faults": [{"invocation": "msg-1#1", "ordinal": 0, "fault": "crash_after"}], "turns": []},
    "keptEvents": ["msg-1"],
    "provenance": PROVENANCE,
}

#: An AWS handler that logs, writes a ledger entry keyed by a fresh id, and is redelivered
#: 30 virtual seconds later (the visibility timeout) when a crash hit the implicit delete.
_AWS_OUTPUT = "handling o-1\nWARNING:root:about to write o-1\n"


def _aws_put(kind, invocation, entry, time):
    payload = {"args": {"Item": {"entry_id": entry, "order_id": "o-1"}, "TableName": "ledger"}}
    if kind == "result":
        payload["result"] = {"ok": True}
    return _effect(kind, invocation, 0, payload, time, target="DynamoDB:ledger", op="PutItem")


def _aws_sqs(kind, invocation, ordinal, op, args, time, **extra):
    payload = dict({"args": dict({"body": {"orderId": "o-1"}, "implicit": True, "messageId": "msg-1"}, **args)}, **extra)
    return _effect(kind, invocation, ordinal, payload, time, target="SQS:payments", op=op)


def _aws_output(kind, invocation, ordinal, time):
    payload = {"args": {"text": _AWS_OUTPUT}}
    if kind == "result":
        payload["result"] = {"captured": True}
    return _effect(kind, invocation, ordinal, payload, time, target="Lambda:payments", op="output")


REDELIVERED_MS = 30_000

AWS_VIOLATED = {
    "schemaVersion": 1,
    "kind": "violated",
    "scenario": "aws-ledger",
    "platform": "aws",
    "violation": {
        "invariant": "ledger-entry-once",
        "invariantKind": "at_most_once_per_key",
        "keys": ['"o-1"'],
        "effects": [1, 9],
        "rows": [],
        "message": "two DynamoDB:ledger PutItem effects share key \"o-1\"",
    },
    "trace": [
        _aws_put("call", "msg-1#1", "e-1", 0),
        _aws_put("result", "msg-1#1", "e-1", 0),
        _aws_sqs("call", "msg-1#1", 1, "delete", {}, 1),
        _aws_sqs("fault", "msg-1#1", 1, "delete", {}, 1, fault="crash_before"),
        _aws_sqs("call", "msg-1#1", 2, "retry", {"reason": "not_deleted"}, 2),
        _aws_sqs("result", "msg-1#1", 2, "retry", {"reason": "not_deleted"}, 2,
                 result={"released": True, "visibleAt": START_MS + REDELIVERED_MS}),
        _aws_output("call", "msg-1#1", 3, 3),
        _aws_output("result", "msg-1#1", 3, 3),
        _aws_put("call", "msg-1#2", "e-2", REDELIVERED_MS),
        _aws_put("result", "msg-1#2", "e-2", REDELIVERED_MS),
        _aws_sqs("call", "msg-1#2", 1, "delete", {}, REDELIVERED_MS + 1),
        _aws_sqs("result", "msg-1#2", 1, "delete", {}, REDELIVERED_MS + 1, result={"deleted": True}),
        _aws_output("call", "msg-1#2", 2, REDELIVERED_MS + 2),
        _aws_output("result", "msg-1#2", 2, REDELIVERED_MS + 2),
        _effect("snapshot", "snapshot", 0, {"rows": [{"entry_id": "e-1", "order_id": "o-1"}, {"entry_id": "e-2", "order_id": "o-1"}]},
                REDELIVERED_MS + 3, target="DynamoDB:ledger", op="items"),
    ],
    "schedule": {"faults": [{"invocation": "msg-1#1", "ordinal": 1, "fault": "crash_before"}], "turns": []},
    "keptEvents": ["msg-1"],
    "provenance": dict(PROVENANCE, seed="aws-ledger", assumptions=["moto 5.2.1 server"]),
}

BOUNDED = {
    "schemaVersion": 1,
    "kind": "bounded",
    "scenario": "queue-idempotent-write",
    "platform": "cloudflare",
    "provenance": dict(PROVENANCE, seed="queue-idempotent-write", runs=200, faultsInjected=180),
}

UNSUPPORTED = {
    "schemaVersion": 1,
    "kind": "unsupported",
    "scenario": "kv-cache",
    "platform": "cloudflare",
    "cause": {"kind": "binding_not_allowed", "detail": "KV binding CACHE was touched"},
    "provenance": dict(PROVENANCE, seed="kv-cache", runs=1, faultsInjected=0),
}


def violated():
    return copy.deepcopy(VIOLATED)


def bounded(**extra):
    return dict(copy.deepcopy(BOUNDED), **extra)


def unsupported():
    return copy.deepcopy(UNSUPPORTED)


def aws_violated():
    return copy.deepcopy(AWS_VIOLATED)


#: The fault-free run of VIOLATED's msg-1: insert once, ack, one row (``faultFree``).
_FAULT_FREE_TRACE = [
    _effect("call", "msg-1#1", 0, {"args": _args()}, 0),
    _effect("result", "msg-1#1", 0, {"args": _args(), "result": {"changes": 1}}, 1),
    _effect("call", "msg-1#1", 1, {"args": {"id": "msg-1"}}, 1, target="Queue:payments", op="ack"),
    _effect("result", "msg-1#1", 1, {"args": {"id": "msg-1"}, "result": None}, 2, target="Queue:payments", op="ack"),
    _effect("snapshot", "snapshot", 0, {"rows": [{"order_id": "o-1", "amount_cents": 1200, "id": 1}]}, 3, op="payments"),
]


def violated_with_fault_free():
    """VIOLATED with what the crash changed: the runs share the insert, then one redelivers and one acks."""
    verdict = violated()
    verdict["faultFree"] = {
        "changed": "faults",
        "schedule": {"faults": [], "turns": []},
        "end": {"kind": "completed"},
        "violations": [],
        "trace": copy.deepcopy(_FAULT_FREE_TRACE),
        "divergence": {
            "agreedPoints": 1,
            "violating": copy.deepcopy(VIOLATED["trace"][3:8]),
            "faultFree": copy.deepcopy(_FAULT_FREE_TRACE[2:4]),
        },
        "stateDiffers": [{"target": "D1:DB", "op": "payments"}],
    }
    return verdict
