"""engine/differential.py: the raw run's loop, the comparison and the runner, on a fake raw side.

The fake raw side is a handler written in Python over a dict of tables: it plays the part a
platform plays (how one attempt calls its handler, what the attempt's record holds), so the
loop's own rules are what these tests pin: which messages go next, which decision counts,
the implicit ack, core's redelivery rule, the hang that ends a run; and that the comparison
reports a difference planted on either side. The Cloudflare raw side runs the same loop
inside workerd (packages/cloudflare/tests/test_differential.py, corpus/differential).
"""

from __future__ import annotations

import pytest

from eutaxy.core.faults import may_redeliver
from eutaxy.core.protocol import RunResult
from eutaxy.engine.differential import (
    AttemptRecord,
    DifferentialRunner,
    RawQueue,
    attempts_of_raw,
    compare,
    raw_run,
    redelivery_table,
)


class FakeRawSide:
    """A raw side whose handler is a Python function ``handler(deliveries, tables, decide)``.

    ``decide(message_id, op)`` notes an ack or retry; the handler returns, raises (threw),
    or returns ``"hang"`` (hung). Every step is logged, so the tests see the loop's calls.
    """

    def __init__(self, handler):
        self.handler = handler
        self.tables: dict[str, list[dict]] = {}
        self.log: list[tuple] = []
        #: What settle() names as unfinished after the last attempt.
        self.pending: list[str] = []

    def reset(self):
        self.log.append(("reset",))
        self.tables = {"rows": []}

    def attempt(self, invocation, deliveries):
        self.log.append(("attempt", invocation, tuple((d.id, d.attempts) for d in deliveries)))
        calls = []
        try:
            answer = self.handler(deliveries, self.tables, lambda message_id, op: calls.append((message_id, op)))
        except RuntimeError:
            return AttemptRecord(outcome="threw", calls=tuple(calls))
        if answer == "hang":
            return AttemptRecord(outcome="hung", calls=tuple(calls), detail=f"{invocation} hung")
        return AttemptRecord(outcome="returned", calls=tuple(calls))

    def settle(self):
        return list(self.pending)

    def snapshots(self):
        self.log.append(("snapshot",))
        return [{"target": "Fake:DB", "table": name, "rows": list(rows)} for name, rows in sorted(self.tables.items())]


def queue(*ids, batch_size=1, platform_limit=3):
    return RawQueue(events=tuple((i, {"n": i}) for i in ids), batch_size=batch_size, platform_limit=platform_limit)


def always_throws(deliveries, tables, decide):
    for d in deliveries:
        tables["rows"].append({"id": d.id, "attempt": d.attempts})
    raise RuntimeError("always fails")


@pytest.mark.parametrize("platform_limit", [0, 1, 3])
@pytest.mark.parametrize("max_redeliveries", [None, 0, 1, 2, 5])
def test_a_message_is_delivered_again_exactly_as_core_may_redeliver_says(platform_limit, max_redeliveries):
    """An always-failing message: one attempt per delivery core allows, then a dead letter,
    or nothing when the scenario's bound cut it before the platform's limit."""
    side = FakeRawSide(always_throws)
    raw = raw_run(side, queue("m", platform_limit=platform_limit), max_redeliveries=max_redeliveries)
    most = platform_limit if max_redeliveries is None else min(platform_limit, max_redeliveries)
    deliveries = 1 + most
    assert [f"m#{n}" for n in range(1, deliveries + 1)] == [a["invocation"] for a in raw["attempts"]]
    assert [may_redeliver(n, platform_limit, max_redeliveries) for n in range(1, deliveries + 1)] == [
        bool(a["redelivered"]) for a in raw["attempts"]
    ]
    cut = most < platform_limit
    assert ([] if cut else [{"messageId": "m", "attempts": deliveries}]) == raw["attempts"][-1]["deadLettered"]
    assert deliveries == len(raw["snapshots"][0]["rows"])
    assert redelivery_table(platform_limit, max_redeliveries) == [bool(a["redelivered"]) for a in raw["attempts"]]


def test_the_first_call_per_message_counts_and_a_returned_handler_acks_the_rest():
    def handler(deliveries, tables, decide):
        decide("a", "retry")
        decide("a", "ack")  # too late: the retry came first
        # b is left undecided: acked as the handler returns.

    raw = raw_run(FakeRawSide(handler), queue("a", "b", batch_size=2), max_redeliveries=2)
    first = raw["attempts"][0]
    assert "a#1" == first["invocation"] and ["a", "b"] == first["messages"]
    assert [
        {"messageId": "a", "op": "retry", "implicit": False},
        {"messageId": "b", "op": "ack", "implicit": True},
    ] == first["decisions"]
    assert ["a"] == first["redelivered"]


def test_a_throw_keeps_explicit_acks_and_redelivers_only_the_undecided():
    def handler(deliveries, tables, decide):
        decide(deliveries[0].id, "ack")
        if deliveries[-1].attempts == 1 and len(deliveries) == 2:
            raise RuntimeError("after the first ack")

    raw = raw_run(FakeRawSide(handler), queue("a", "b", batch_size=2), max_redeliveries=2)
    assert [("a#1", "threw", ["b"]), ("b#2", "returned", [])] == [
        (a["invocation"], a["outcome"], a["redelivered"]) for a in raw["attempts"]
    ]
    assert [{"messageId": "a", "op": "ack", "implicit": False}] == raw["attempts"][0]["decisions"]


def test_a_message_delivered_again_waits_behind_those_already_waiting():
    def handler(deliveries, tables, decide):
        for d in deliveries:
            if d.id == "a" and d.attempts == 1:
                decide("a", "retry")

    side = FakeRawSide(handler)
    raw_run(side, queue("a", "b", "c", batch_size=2), max_redeliveries=2)
    assert [
        ("reset",),
        ("attempt", "a#1", (("a", 1), ("b", 1))),
        ("attempt", "c#1", (("c", 1), ("a", 2))),
        ("snapshot",),
    ] == side.log


def test_timed_events_go_in_order_of_time_and_a_redelivery_is_due_at_its_attempts_time():
    """A cron drive's ticks: each due at its own virtual time, listed out of order here. A tick
    that threw is due again at once, so it goes before a later tick, not behind every waiting one;
    and one due at the same time as a waiting one goes behind it."""
    def handler(deliveries, tables, decide):
        (d,) = deliveries
        if d.id in ("b", "c") and d.attempts == 1:
            raise RuntimeError("fails once")

    side = FakeRawSide(handler)
    timed = RawQueue(events=(("c", None), ("a", None), ("b", None), ("d", None)), batch_size=1, platform_limit=1,
                     due_ms=(300, 0, 300, 600))
    raw = raw_run(side, timed, max_redeliveries=None)
    assert ["a#1", "c#1", "b#1", "c#2", "b#2", "d#1"] == [entry[1] for entry in side.log if entry[0] == "attempt"]
    assert [["c"], ["b"]] == [a["redelivered"] for a in raw["attempts"] if a["redelivered"]]


def test_a_hung_attempt_ends_the_run_without_snapshots():
    def handler(deliveries, tables, decide):
        return "hang" if deliveries[0].id == "b" else None

    side = FakeRawSide(handler)
    raw = raw_run(side, queue("a", "b", "c"), max_redeliveries=2)
    assert {"kind": "hung", "detail": "b#1 hung"} == raw["end"]
    assert ["a#1"] == [a["invocation"] for a in raw["attempts"]]
    assert [] == raw["snapshots"]
    assert ("snapshot",) not in side.log


def test_a_decision_for_a_message_outside_the_batch_is_the_platforms_bug():
    with pytest.raises(AssertionError, match="not in its batch"):
        raw_run(FakeRawSide(lambda deliveries, tables, decide: decide("z", "ack")), queue("a"), max_redeliveries=0)


# ---------------------------------------------------------------------------
# The runner and the comparison, with a planted divergence on each side.


def writes_and_acks(deliveries, tables, decide):
    for d in deliveries:
        tables["rows"].append({"id": d.id})
        decide(d.id, "ack")


class FixedPlatform:
    """The proxied side's double: answers one RunResult and keeps the plans it was sent."""

    def __init__(self, rows):
        self.plans = []
        self.rows = rows

    def run(self, plan):
        self.plans.append(plan)
        snapshot = {"target": "Fake:DB", "op": "rows", "kind": "snapshot", "payload": {"rows": list(self.rows)},
                    "invocation": "snapshot", "ordinal": 0, "time": 0}
        return RunResult(effects=(snapshot,))


def proxied_acks(ids):
    records = [{"invocation": f"{i}#1", "decisions": [{"messageId": i, "op": "ack", "implicit": False}], "deadLettered": []}
               for i in ids]
    return lambda proxied: records


SCENARIO = {"name": "fake", "drive": {"kind": "queue"}, "bounds": {"maxFaultsPerRun": 1, "maxRedeliveries": 2}}


def test_the_runner_sends_a_fault_free_plan_and_agreeing_runs_have_no_differences():
    platform = FixedPlatform([{"id": "b"}, {"id": "a"}])
    runner = DifferentialRunner(SCENARIO, platform=platform, side=FakeRawSide(writes_and_acks), queue=queue("a", "b"),
                                proxied_attempts=proxied_acks(["a", "b"]))
    outcome = runner.run(seed="s")
    assert outcome.agree, outcome.differences
    [plan] = platform.plans
    assert (0, "first", ()) == (plan.max_faults, plan.policy.kind, plan.prefix)
    assert 2 == plan.scenario["bounds"]["maxRedeliveries"]


def test_a_row_planted_in_the_proxied_run_is_reported():
    platform = FixedPlatform([{"id": "a"}, {"id": "b"}, {"id": "b"}])
    runner = DifferentialRunner(SCENARIO, platform=platform, side=FakeRawSide(writes_and_acks), queue=queue("a", "b"),
                                proxied_attempts=proxied_acks(["a", "b"]))
    [difference] = runner.run(seed="s").differences
    assert ("table", "Fake:DB/rows", ['{"id":"b"}'], []) == (
        difference["kind"], difference["table"], difference["proxiedOnly"], difference["rawOnly"])


def test_a_decision_planted_in_the_proxied_run_is_reported():
    platform = FixedPlatform([{"id": "a"}, {"id": "b"}])
    runner = DifferentialRunner(SCENARIO, platform=platform, side=FakeRawSide(writes_and_acks), queue=queue("a", "b"),
                                proxied_attempts=proxied_acks(["a"]))
    [difference] = runner.run(seed="s").differences
    assert ("decisions", 1, None) == (difference["kind"], difference["index"], difference["proxied"])
    assert "b#1" == difference["raw"]["invocation"]


def test_attempts_that_decided_nothing_are_left_out_and_an_unfinished_run_is_one_difference():
    raw = raw_run(FakeRawSide(always_throws), queue("m", platform_limit=1), max_redeliveries=1)
    # m#1 threw and decided nothing; m#2 dead-lettered m.
    assert ["m#2"] == [a["invocation"] for a in attempts_of_raw(raw)]
    proxied = {"effects": [], "end": {"kind": "unsupported", "cause": "unseen_wait"}}
    [difference] = compare(proxied, raw, proxied_attempts=[])
    assert "end" == difference["kind"]


def test_work_the_raw_side_could_not_settle_ends_the_raw_run_and_is_a_difference():
    """A platform's own work left unfinished after the last attempt (a real alarm that never
    fired) ends the raw run as hung, without snapshots, and the comparison names it."""
    side = FakeRawSide(lambda deliveries, tables, decide: None)
    side.pending = ["DO:X object \"a\": its real alarm not fired"]
    raw = raw_run(side, queue("a"), max_redeliveries=0)
    assert {"kind": "hung", "detail": side.pending[0]} == raw["end"]
    assert [] == raw["snapshots"] and ("snapshot",) not in side.log
    (difference,) = compare({"end": {"kind": "completed"}, "effects": []}, raw, proxied_attempts=[])
    assert "end" == difference["kind"] and "its real alarm not fired" in difference["message"]
