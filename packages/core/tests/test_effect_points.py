"""Effect points: a call with the result and fault that follow it, and how a report names them."""

from __future__ import annotations

from eutaxy.core.effect_points import effect_points, fault_text, group_points, invocation_label
from eutaxy.core.effects import Effect


def _effect(kind, ordinal=0, invocation="msg-1#1", payload=None, op="run"):
    return Effect(target="D1:DB", op=op, kind=kind, payload=payload or {}, invocation=invocation, ordinal=ordinal, time=0)


def test_a_call_takes_its_result_and_one_fault_and_a_redelivery_stands_alone():
    """call, result, fault group as one point; a fault with no call and a snapshot do not join it."""
    call, result, fault = _effect("call"), _effect("result"), _effect("fault", payload={"fault": "crash_after"})
    redelivery = _effect("fault", invocation="msg-1#2", op="redelivery", payload={})
    snapshot = _effect("snapshot", invocation="snapshot", op="payments")
    assert [[call, result, fault], [redelivery]] == effect_points([call, result, fault, redelivery, snapshot])
    assert [[(0, call)], [(1, _effect("result", ordinal=1))]] == group_points([(0, call), (1, _effect("result", ordinal=1))])


def test_labels_and_fault_texts_read_as_the_report_prints_them():
    """A second attempt is a redelivery; a start time is an offset; a fault names what it did."""
    assert "msg-1#1" == invocation_label("msg-1#1")
    assert "msg-1#2 (redelivery, at +30 s)" == invocation_label("msg-1#2", 30000)
    assert "msg-1#1 (at +1.500 s)" == invocation_label("msg-1#1", 1500)
    assert "DO:RUNNER/runner/after" == invocation_label("DO:RUNNER/runner/after")
    assert "DO:RUNNER/runner/after#2 (after a reset)" == invocation_label("DO:RUNNER/runner/after#2")
    assert "!! crash_before (crashed before the effect: it did not happen)" == fault_text(
        _effect("fault", payload={"fault": "crash_before"}))


def test_a_later_attempt_is_named_by_its_drive_and_a_crash_before_by_what_stands():
    """A request's second attempt is a resend, a message's a redelivery, an alarm's a retry; a
    crash_before names the invocation's points before it, or says there were none."""
    assert "req-1#2 (resend)" == invocation_label("req-1#2", drive="http")
    assert "msg-1#2 (redelivery, at +2.500 s)" == invocation_label("msg-1#2", 2500, drive="queue")
    assert "msg-1#3 (redelivery)" == invocation_label("msg-1#3", drive="sqs")
    assert "DO:B/o-1/alarm.1#2 (retry)" == invocation_label("DO:B/o-1/alarm.1#2", drive="http")
    assert "DO:B/o-1/after#2 (after a reset)" == invocation_label("DO:B/o-1/after#2", drive="http")
    crash = _effect("fault", payload={"fault": "crash_before"})
    assert fault_text(crash, ["#0 D1:DB run"]).endswith("it did not happen; what the invocation did before it stands: #0 D1:DB run)")
    assert fault_text(crash, []).endswith("it did not happen, and the invocation had done nothing before it)")
    assert "!! redelivery (the event was delivered again)" == fault_text(_effect("fault", op="redelivery"))
