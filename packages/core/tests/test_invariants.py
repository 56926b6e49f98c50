"""The invariants on the logs the seeds describe, and their messages."""

from __future__ import annotations

import pytest

from eutaxy.core import invariants as inv
from eutaxy.core import selectors as sel
from eutaxy.core.effects import Effect, snapshot
from eutaxy.core.errors import UserError

from shapes import ACKS, READS, WRITES, param, table


def write(invocation, ordinal, order, amount=1200, changes=1, time=0):
    payload = {"args": {"sql": "INSERT", "params": [order, amount]}, "result": {"changes": changes, "lastRowId": 1}, "statement": "write"}
    return Effect("D1:DB", "run", "result", payload, invocation, ordinal, time)


def read(invocation, ordinal, order, time=0):
    return Effect("D1:DB", "first", "result", {"args": {"sql": "SELECT", "params": [order]}, "result": {"refunded": 0}, "statement": "read"}, invocation, ordinal, time)


def decide(invocation, ordinal, refunded, time=0):
    return Effect("Core:decideRefund", "decide", "decision", {"args": [1000, 0, refunded], "result": {"refunded": refunded}}, invocation, ordinal, time)


PAYMENTS = [{"id": "msg-1", "body": {"orderId": "o-1", "amountCents": 1200}}, {"id": "msg-2", "body": {"orderId": "o-2", "amountCents": 500}}]
ONCE = inv.at_most_once_per_key("payment-recorded-once", WRITES, param(0))
EVERY = inv.at_least_once_per_message("every-payment-recorded", {"kind": "queue", "name": "payments"}, WRITES, param(0), "orderId")


def test_duplicate_write_under_redelivery():
    """A crash after the write redelivers msg-1, whose second write shares key o-1."""
    log = [write("msg-1#1", 0, "o-1"), write("msg-1#2", 0, "o-1"), write("msg-2#1", 0, "o-2")]
    [violation] = inv.check_invariants([ONCE, EVERY], log, PAYMENTS)
    assert 'payment-recorded-once: two D1:DB run effects share key "o-1": msg-1#1 effect #0 and msg-1#2 effect #0' == violation.message
    assert ['"o-1"'] == violation.keys
    assert [0, 1] == violation.effects
    assert "at_most_once_per_key" == violation.invariant_kind


def test_lost_message_and_rederived_expectations():
    """A message with no write violates; with that event shrunk away the expectation goes too."""
    log = [write("msg-1#1", 0, "o-1")]
    [violation] = inv.check_invariants([EVERY], log, PAYMENTS)
    assert ['"o-2"'] == violation.keys
    assert "msg-2" in violation.message and '"o-2"' in violation.message
    assert [] == inv.check_invariants([EVERY], log, PAYMENTS[:1])


def test_write_that_changed_nothing_is_not_a_write():
    """The D1 write selector selects only results with changes > 0."""
    log = [write("msg-1#1", 0, "o-1"), write("msg-1#2", 0, "o-1", changes=0)]
    assert [] == inv.check_invariants([ONCE], log, [])


def test_drive_name_must_match():
    """An invariant naming another drive is refused at check time (load time: eutaxy.engine.scenario)."""
    with pytest.raises(UserError, match="drive"):
        inv.check_invariants([EVERY], [], [], drive="orders")


def test_at_least_once_expected():
    """Every expected key must appear."""
    invariant = inv.at_least_once("both", WRITES, param(0), ["o-1", "o-2"])
    [violation] = inv.check_invariants([invariant], [write("msg-1#1", 0, "o-1")], [])
    assert ['"o-2"'] == violation.keys


def test_state_invariants_and_missing_snapshot():
    """every_row, unique, implies and references read snapshots; a missing one is a violation."""
    accounts = snapshot("D1:DB", "accounts", [{"id": "a", "balance_cents": -5}, {"id": "b", "balance_cents": 3}], 9)
    payments = snapshot("D1:DB", "payments", [{"order_id": "o-1"}, {"order_id": "o-1"}, {"order_id": None}, {"order_id": None}], 9)
    files = snapshot("D1:DB", "files", [{"object_key": "k1"}], 9)
    objects = snapshot("R2:UPLOADS", "objects", [{"key": "k1"}, {"key": "k2"}], 9)
    ack = Effect("Queue:payments", "ack", "result", {"args": {"messageId": "msg-2", "body": {"orderId": "o-2"}}, "result": {"effective": True}}, "msg-2#1", 1, 3)
    log = [ack, accounts, payments, files, objects]
    checks = [
        inv.every_row("no-negative-balance", table("accounts"), [{"column": "balance_cents", "op": "gte", "value": 0}]),
        inv.unique("one-row-per-order", table("payments"), "order_id"),
        inv.implies("acked-means-recorded", ACKS, "args.body.orderId", table("payments"), "order_id"),
        inv.references("no-orphan-uploads", sel.rows("R2:UPLOADS", "objects"), "key", table("files"), "object_key"),
        inv.every_row("ledger-ok", table("ledger"), []),
    ]
    found = {v.invariant: v for v in inv.check_invariants(checks, log, [])}
    assert ['{"balance_cents":-5,"id":"a"}'] == found["no-negative-balance"].keys
    assert "balance_cents gte 0" in found["no-negative-balance"].message
    assert ['"o-1"'] == found["one-row-per-order"].keys  # nulls are not shared values
    assert ['"o-2"'] == found["acked-means-recorded"].keys and [0] == found["acked-means-recorded"].effects
    assert ['"k2"'] == found["no-orphan-uploads"].keys and [{"key": "k2"}] == found["no-orphan-uploads"].rows
    assert "no snapshot of D1:DB table ledger" in found["ledger-ok"].message


REFINES = inv.refines(
    "refund-follows-decision",
    "decideRefund",
    WRITES,
    follows=[{"effect": param(1), "decision": "result.refunded"}],
    state={"read": READS, "write": WRITES, "key": param(0)},
)


def test_refines_lost_update():
    """Two refunds read o-1, decide, and write: the second write rests on a stale read."""
    log = [
        read("req-1#1", 0, "o-1"),
        read("req-2#1", 0, "o-1"),
        decide("req-1#1", 1, 600),
        write("req-1#1", 1, "o-1", 600),
        decide("req-2#1", 1, 400),
        write("req-2#1", 1, "o-1", 400),
    ]
    [violation] = inv.check_invariants([REFINES], log, [])
    assert ['"o-1"'] == violation.keys
    assert [1, 3, 4, 5] == violation.effects
    assert "rested on a read of \"o-1\" (req-2#1 effect #0)" in violation.message
    assert "req-1#1 effect #1 changed \"o-1\"" in violation.message


def test_refines_sequential_holds_and_mismatch_and_missing_decision():
    """In sequence it holds; a write disagreeing with its decision, or with none, violates."""
    sequential = [read("req-1#1", 0, "o-1"), decide("req-1#1", 1, 600), write("req-1#1", 1, "o-1", 600), read("req-2#1", 0, "o-1"), decide("req-2#1", 1, 400), write("req-2#1", 1, "o-1", 400)]
    assert [] == inv.check_invariants([REFINES], sequential, [])
    mismatch = [read("req-1#1", 0, "o-1"), decide("req-1#1", 1, 600), write("req-1#1", 1, "o-1", 500)]
    [violation] = inv.check_invariants([REFINES], mismatch, [])
    assert "has 500 at args.params.1 but its decideRefund decision (effect #1) has 600 at result.refunded" in violation.message
    [violation] = inv.check_invariants([REFINES], [write("req-1#1", 0, "o-1")], [])
    assert "carries out no decideRefund decision" in violation.message


def test_refines_decision_of_another_invocation_does_not_count():
    """Only the effect's own invocation's decisions count."""
    log = [read("req-1#1", 0, "o-1"), decide("req-2#1", 0, 600), write("req-1#1", 1, "o-1", 600)]
    [violation] = inv.check_invariants([REFINES], log, [])
    assert "no decideRefund decision" in violation.message


def test_constructors_validate():
    """Malformed invariants are refused with the invariant named."""
    with pytest.raises(UserError, match="name"):
        inv.at_most_once_per_key("", WRITES, "k")
    with pytest.raises(UserError, match="state"):
        inv.refines("r", "d", WRITES, state={"read": READS})
    with pytest.raises(UserError, match="unknown invariant kind"):
        inv.check_invariants([{"kind": "at_most_once", "name": "x"}], [], [])
    with pytest.raises(UserError, match="did you mean 'at_most_once_per_key'"):
        inv.check_invariants([{"kind": "at_most_once_per_kye", "name": "x"}], [], [])


def test_effects_as_plain_data():
    """check_invariants takes the RunResult's effect data as well as Effect records."""
    log = [write("msg-1#1", 0, "o-1").to_data(), write("msg-1#2", 0, "o-1").to_data()]
    assert 1 == len(inv.check_invariants([ONCE], log, []))
