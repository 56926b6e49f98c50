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


def send(invocation, customer, seq, time):
    return Effect("SQS:shipments.fifo", "SendMessage", "result", {"args": {"body": {"customer": customer, "seq": seq}}}, invocation, 0, time)


SENDS = {"target": "SQS:shipments.fifo", "op": "SendMessage", "kind": "result"}


def test_in_order_per_key_names_the_first_step_back():
    """Customer a's seq 2 is forwarded before its seq 1; customer b's order is its own."""
    log = [send("msg-2#1", "a", 2, 0), send("msg-3#1", "b", 5, 1), send("msg-1#2", "a", 1, 30002), send("msg-4#1", "b", 6, 30003)]
    fifo = inv.in_order_per_key("fifo-per-customer", SENDS, "args.body.customer", "args.body.seq")
    [violation] = inv.check_invariants([fifo], log, [])
    assert (
        'fifo-per-customer: SQS:shipments.fifo SendMessage effects of group "a" out of order: '
        "args.body.seq 2 (msg-2#1 effect #0) came before args.body.seq 1 (msg-1#2 effect #0)"
    ) == violation.message
    assert ['"a"'] == violation.keys and [0, 2] == violation.effects
    assert [] == inv.check_invariants([fifo], [log[2], log[0], log[1], log[3]], [])


def test_in_order_per_key_passes_over_what_does_not_order():
    """Equal values, a missing group, null, a boolean and a number after a string are not steps back."""
    log = [send("m#1", "a", 1, 0), send("m#2", "a", 1, 1), send("m#3", "a", "z", 2), send("m#4", "a", 0.5, 3)]
    log += [send("m#5", "a", None, 4), send("m#6", "a", True, 5)]
    fifo = inv.in_order_per_key("fifo", SENDS, "args.body.customer", "args.body.seq")
    [violation] = inv.check_invariants([fifo], log, [])
    assert [0, 1, 3] == violation.effects  # 0.5 after 1 and 1; the string sits apart
    assert [] == inv.check_invariants([fifo], log[:3], [])


def test_min_interval_per_key_compares_virtual_times():
    """Two sends of one customer 2 ms apart, where 60 s were meant; another customer's are far apart."""
    log = [send("msg-1#1", "a", 1, 1000), send("msg-2#1", "b", 1, 1001), send("msg-1#2", "a", 2, 1002), send("msg-2#2", "b", 2, 61001)]
    spaced = inv.min_interval_per_key("a-minute-apart", SENDS, "args.body.customer", 60_000)
    [violation] = inv.check_invariants([spaced], log, [])
    assert (
        'a-minute-apart: SQS:shipments.fifo SendMessage effects with key "a" came 2 ms apart, less than the 60000 ms '
        "required: msg-1#1 effect #0 and msg-1#2 effect #0"
    ) == violation.message
    assert ['"a"'] == violation.keys and [0, 2] == violation.effects
    exactly = inv.min_interval_per_key("exactly", SENDS, "args.body.customer", 2)
    assert [] == inv.check_invariants([exactly], log, [])


def test_max_interval_per_key_is_a_deadline_from_the_first():
    """b's second send comes 60 s after its first, past a 10 s deadline; a key with one effect meets it."""
    log = [send("msg-2#1", "b", 1, 61001), send("msg-1#1", "a", 1, 1000), send("msg-2#2", "b", 2, 1001)]
    deadline = inv.max_interval_per_key("within-10s", SENDS, "args.body.customer", 10_000)
    [violation] = inv.check_invariants([deadline], log, [])
    assert (
        'within-10s: SQS:shipments.fifo SendMessage effects with key "b" came 60000 ms apart, more than the 10000 ms '
        "allowed: msg-2#2 effect #0, then msg-2#1 effect #0"
    ) == violation.message
    assert ['"b"'] == violation.keys and [0, 2] == violation.effects
    assert [] == inv.check_invariants([inv.max_interval_per_key("a-minute", SENDS, "args.body.customer", 60_000)], log, [])


DOCUMENTS = [{"id": "d-1", "owner": "u-1", "size": 3 * 2**30}, {"id": "d-2", "owner": "u-1", "size": 3 * 2**30}, {"id": "d-3", "owner": "u-2", "size": None}]


def test_aggregate_sum_over_a_quota():
    """Two 3 GiB uploads overshoot a 5 GiB quota; the null size is skipped; an empty table sums to 0."""
    quota = inv.aggregate("under-quota", table("documents"), "size", "sum", "lte", 5 * 2**30)
    [violation] = inv.check_invariants([quota], [snapshot("D1:DB", "documents", DOCUMENTS, 9)], [])
    assert "under-quota: the sum of size over D1:DB table documents is 6442450944, which breaks lte 5368709120" == violation.message
    assert [] == violation.keys and [0] == violation.effects and 3 == len(violation.rows)
    assert [] == inv.check_invariants([quota], [snapshot("D1:DB", "documents", DOCUMENTS[1:], 9)], [])
    assert [] == inv.check_invariants([quota], [snapshot("D1:DB", "documents", [], 9)], [])
    [missing] = inv.check_invariants([quota], [], [])
    assert "no snapshot of D1:DB table documents" in missing.message


def test_aggregate_count_per_group():
    """At most one charged row per order: o-1 has two; a null order is a group of its own."""
    charges = [{"order_id": "o-1", "status": "charged"}, {"order_id": "o-1", "status": "charged"}, {"order_id": "o-2", "status": "charged"}]
    charges += [{"order_id": "o-2", "status": "refunded"}, {"order_id": None, "status": "charged"}, {"status": "charged"}]
    charged = sel.rows("D1:DB", "charges", [{"column": "status", "op": "eq", "value": "charged"}])
    once = inv.aggregate("one-charge-per-order", charged, "status", "count", "lte", 1, group_by="order_id")
    [violation] = inv.check_invariants([once], [snapshot("D1:DB", "charges", charges, 9)], [])
    assert ['"o-1"', "null"] == sorted(violation.keys)
    assert violation.message.startswith("one-charge-per-order: the count of status over D1:DB table charges for order_id ")
    assert 4 == len(violation.rows)


def test_aggregate_that_cannot_be_taken_breaks():
    """A sum over text, and a max over numbers and text, never pass; min and max compare."""
    rows = [snapshot("D1:DB", "documents", [{"size": 2}, {"size": "big"}, {"size": 1}], 9)]
    [violation] = inv.check_invariants([inv.aggregate("s", table("documents"), "size", "sum", "lte", 10)], rows, [])
    assert 'cannot take the sum of size over D1:DB table documents: it holds "big", and sum takes numbers' in violation.message
    assert 1 == len(inv.check_invariants([inv.aggregate("m", table("documents"), "size", "max", "lte", 10)], rows, []))
    numbers = [snapshot("D1:DB", "documents", [{"size": 2}, {"size": 1}], 9)]
    assert [] == inv.check_invariants([inv.aggregate("lo", table("documents"), "size", "min", "eq", 1)], numbers, [])
    assert [] == inv.check_invariants([inv.aggregate("hi", table("documents"), "size", "max", "eq", 2)], numbers, [])


def test_new_constructors_validate():
    """Bad ms, fn, op and groupBy are refused naming the invariant."""
    with pytest.raises(UserError, match="'gap' .*ms must be a number"):
        inv.min_interval_per_key("gap", SENDS, "args.body.customer", -1)
    with pytest.raises(UserError, match="ms must be a number"):
        inv.max_interval_per_key("gap", SENDS, "args.body.customer", True)
    with pytest.raises(UserError, match="sequenceKey must be a string"):
        inv.in_order_per_key("fifo", SENDS, "args.body.customer", None)
    with pytest.raises(UserError, match="fn must be one of sum, count, min, max, got 'avg'"):
        inv.aggregate("a", table("documents"), "size", "avg", "lte", 1)
    with pytest.raises(UserError, match="op must be one of"):
        inv.aggregate("a", table("documents"), "size", "sum", "at_most", 1)
    with pytest.raises(UserError, match="groupBy must be a column name"):
        inv.aggregate("a", table("documents"), "size", "sum", "lte", 1, group_by=3)
    assert "value" not in inv.aggregate("a", table("documents"), "size", "max", "notNull")


def test_effects_as_plain_data():
    """check_invariants takes the RunResult's effect data as well as Effect records."""
    log = [write("msg-1#1", 0, "o-1").to_data(), write("msg-1#2", 0, "o-1").to_data()]
    assert 1 == len(inv.check_invariants([ONCE], log, []))
