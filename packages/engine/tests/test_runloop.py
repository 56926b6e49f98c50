"""The in-process run loop: plan following, effect points, invocations and the end state.

Each test drives ``RunLoop`` with a small body standing in for a platform's delivery, so
the loop's own rules are checked without any real service.
"""

import json
import pathlib

import pytest

from eutaxy.core import verdicts
from eutaxy.core.effects import VIRTUAL_EPOCH_MS
from eutaxy.engine import runloop
from eutaxy.core.faults import DECISION_FAULTS, WRITE_FAULTS
from eutaxy.engine.runloop import PlanFollower, RunLoop, plan_data, run_limit_ms, unsupported_result


def _plan(policy=None, prefix=(), max_faults=1):
    policy = dict(policy or {"kind": "first"})
    if policy["kind"] == "replay":
        # As core.protocol.ReplayPolicy.to_data writes it: the turn picks always (none here).
        policy.setdefault("turns", [])
        policy.setdefault("batches", [])
    return {
        "protocol": 1,
        "scenario": {"bounds": {"effectHangMs": 10_000}},
        "seed": "test",
        "streams": {"globals": [1, 2, 3, 4], "turns": [5, 6, 7, 8]},
        "prefix": list(prefix),
        "policy": policy,
        "maxFaults": max_faults,
        "maxShortBatches": 0,
    }


def _data(result):
    return result.to_data()


def _two_writes(loop, performed=None):
    """One invocation with two write points; returns how the handler call ended."""
    performed = performed if performed is not None else []

    def handler():
        for index in range(2):
            loop.effect_point("DB:t", "put", {"i": index}, WRITE_FAULTS, lambda index=index: (performed.append(index) or {"ok": True}, index))
        return "done"

    with loop.invocation("msg-1#1"):
        return loop.call(handler)


def _run(plan, body):
    loop = RunLoop.from_plan(plan)
    outcomes = []
    loop.run(lambda running: outcomes.append(body(running)))
    return loop, outcomes


def _kinds(loop):
    return [(effect.ordinal, effect.kind) for effect in loop.effects]


def test_a_point_without_a_fault_records_call_then_result_and_advances_time():
    """No fault: call and result at the point's virtual time, then one millisecond passes."""
    loop, outcomes = _run(_plan(), _two_writes)
    assert "returned" == outcomes[0].kind
    assert [(0, "call"), (0, "result"), (1, "call"), (1, "result")] == _kinds(loop)
    assert [VIRTUAL_EPOCH_MS, VIRTUAL_EPOCH_MS, VIRTUAL_EPOCH_MS + 1, VIRTUAL_EPOCH_MS + 1] == [e.time for e in loop.effects]
    assert VIRTUAL_EPOCH_MS + 2 == loop.now_ms
    assert 2 == loop.follower.eligible


@pytest.mark.parametrize(
    ("fault", "kinds", "performed", "outcome"),
    [
        ("crash_before", [(0, "call"), (0, "fault")], [], "crashed"),
        ("crash_after", [(0, "call"), (0, "result"), (0, "fault")], [0], "crashed"),
    ],
)
def test_crashes_record_their_fault_on_the_right_side_of_the_work(fault, kinds, performed, outcome):
    """crash_before performs nothing; crash_after performs, records the result, then dies."""
    done = []
    loop, outcomes = _run(_plan({"kind": "replay", "faults": [{"invocation": "msg-1#1", "ordinal": 0, "fault": fault}]}), lambda lp: _two_writes(lp, done))
    assert kinds == _kinds(loop)
    assert performed == done
    assert outcome == outcomes[0].kind


def test_error_and_ambiguous_return_to_the_platform_which_decides_what_the_caller_sees():
    """error faults before the work, ambiguous after; neither kills the invocation."""
    seen = []

    def body(loop):
        with loop.invocation("msg-1#1"):
            def handler():
                seen.append(loop.effect_point("DB:t", "put", {}, WRITE_FAULTS, lambda: ({"ok": True}, "value")))
                seen.append(loop.effect_point("DB:t", "put", {}, WRITE_FAULTS, lambda: ({"ok": True}, "value")))
            return loop.call(handler)

    replay = {"kind": "replay", "faults": [{"invocation": "msg-1#1", "ordinal": 0, "fault": "error"}]}
    loop, _ = _run(_plan(replay), body)
    assert [("error", None), (None, "value")] == seen
    assert [(0, "call"), (0, "fault"), (1, "call"), (1, "result")] == _kinds(loop)

    seen.clear()
    replay["faults"][0]["fault"] = "ambiguous"
    loop, _ = _run(_plan(replay), body)
    assert [("ambiguous", "value"), (None, "value")] == seen
    assert [(0, "call"), (0, "result"), (0, "fault"), (1, "call"), (1, "result")] == _kinds(loop)


def test_a_handler_that_swallows_the_crash_is_still_crashed_and_its_later_points_unrecorded():
    """``except BaseException`` around a crashed point cannot bring the invocation back."""
    def body(loop):
        with loop.invocation("msg-1#1"):
            def handler():
                try:
                    loop.effect_point("DB:t", "put", {}, WRITE_FAULTS, lambda: ({"ok": True}, None))
                except BaseException:  # noqa: BLE001 (the point of the test)
                    pass
                try:
                    loop.effect_point("DB:t", "put", {}, WRITE_FAULTS, lambda: ({"ok": True}, None))
                except BaseException:  # noqa: BLE001 - swallowing the fault is what the test is about
                    pass
                return "pretend success"
            return loop.call(handler)

    loop, outcomes = _run(_plan({"kind": "replay", "faults": [{"invocation": "msg-1#1", "ordinal": 0, "fault": "crash_before"}]}), body)
    assert "crashed" == outcomes[0].kind
    assert [(0, "call"), (0, "fault")] == _kinds(loop)


def test_the_forced_prefix_comes_first_then_the_policy():
    """Decision i takes prefix[i]; past the prefix the policy (here first: option 0) decides."""
    loop, _ = _run(_plan({"kind": "first"}, prefix=[0, 3]), _two_writes)
    assert [0, 3] == [decision["chosen"] for decision in loop.follower.decisions]
    assert ["none", "crash_before", "crash_after", "ambiguous", "error"] == loop.follower.decisions[0]["options"]
    assert "ambiguous" == loop.effects[-1].payload["fault"]


def test_a_prefix_index_out_of_range_takes_option_zero_and_counts_a_misalignment():
    loop, _ = _run(_plan(prefix=[9]), _two_writes)
    assert 0 == loop.follower.decisions[0]["chosen"]
    assert 1 == loop.follower.misaligned


def test_seeded_faults_are_keyed_by_eligible_ordinal_and_a_draw_picks_an_allowed_kind():
    """core.protocol's seeded policy sends 32-bit draws: allowed[draw % len(allowed)]."""
    loop, _ = _run(_plan({"kind": "seeded", "faults": {"1": 5}}), _two_writes)
    # Eligible ordinal 1 is the second write; 5 % 4 == 1 picks crash_after.
    assert [0, 2] == [decision["chosen"] for decision in loop.follower.decisions]
    assert "crash_after" == loop.effects[-1].payload["fault"]


def test_a_seeded_fault_by_kind_name_is_refused_as_the_schema_refuses_it():
    """Seeded plans carry kind draws (core.protocol.SeededPolicy); a name is a malformed plan."""
    with pytest.raises(ValueError, match="expected a 32-bit kind draw, found 'ambiguous'"):
        PlanFollower.from_plan(_plan({"kind": "seeded", "faults": {"0": "ambiguous"}}))


def test_no_decision_once_max_faults_were_injected_nor_at_a_point_without_faults():
    follower = PlanFollower.from_plan(_plan({"kind": "seeded", "faults": {"0": 3, "1": 3}}))  # 3 % 4 picks error
    assert "error" == follower.fault("msg-1#1", 0, "DB:t", WRITE_FAULTS)
    assert follower.fault("msg-1#1", 1, "DB:t", WRITE_FAULTS) is None
    assert follower.fault("msg-1#1", 2, "DB:t", ()) is None
    assert (1, 1) == (follower.eligible, len(follower.decisions))


def test_replay_faults_are_keyed_by_invocation_and_ordinal():
    follower = PlanFollower.from_plan(_plan({"kind": "replay", "faults": [{"invocation": "msg-2#1", "ordinal": 1, "fault": "crash_before"}]}))
    assert follower.fault("msg-1#1", 1, "SQS:q", DECISION_FAULTS) is None
    assert "crash_before" == follower.fault("msg-2#1", 1, "SQS:q", DECISION_FAULTS)


def test_a_raised_error_is_the_handlers_failure_not_the_runs():
    def body(loop):
        with loop.invocation("msg-1#1"):
            return loop.call(lambda: 1 / 0)

    loop, outcomes = _run(_plan(), body)
    assert "raised" == outcomes[0].kind
    assert isinstance(outcomes[0].error, ZeroDivisionError)
    assert {"kind": "completed"} == loop.end


def test_unsupported_ends_the_run_with_its_cause_even_when_the_handler_swallows_it():
    def body(loop):
        with loop.invocation("msg-1#1"):
            def handler():
                try:
                    raise loop.unsupported("client_not_supported", "the handler called S3 PutObject")
                except BaseException:  # noqa: BLE001 - a handler that hides UNSUPPORTED, which the loop must still see
                    return "hidden"
            loop.call(handler)
        raise AssertionError("the run went on after an unsupported call")

    loop, _ = _run(_plan(), body)
    assert {"kind": "unsupported", "cause": "client_not_supported", "detail": "the handler called S3 PutObject"} == loop.end


def test_platform_effects_take_the_next_ordinal_even_after_a_crash():
    def body(loop):
        with loop.invocation("msg-1#1"):
            loop.call(lambda: loop.effect_point("DB:t", "put", {}, WRITE_FAULTS, lambda: ({}, None)))
            loop.platform_effect("SQS:q", "dead_letter", {"messageId": "msg-1", "attempts": 1}, {"deadLettered": True})

    loop, _ = _run(_plan({"kind": "replay", "faults": [{"invocation": "msg-1#1", "ordinal": 0, "fault": "crash_before"}]}), body)
    assert [(0, "call"), (0, "fault"), (1, "call"), (1, "result")] == _kinds(loop)


def test_the_result_is_protocol_data_with_decisions_eligible_and_end():
    loop, _ = _run(_plan({"kind": "replay", "faults": [{"invocation": "msg-1#1", "ordinal": 1, "fault": "crash_after"}]}), _two_writes)
    loop.record_snapshot("DB:t", "items", [{"k": "b"}, {"k": "a"}])
    data = _data(loop.result())
    assert 1 == data["protocol"]
    assert 2 == data["eligible"]
    assert [0, 2] == [decision["chosen"] for decision in data["decisions"]]
    assert {"kind": "completed"} == data["end"]
    last = data["effects"][-1]
    assert ("snapshot", "snapshot", 0) == (last["kind"], last["invocation"], last["ordinal"])
    assert [{"k": "a"}, {"k": "b"}] == last["payload"]["rows"]


def test_an_unsupported_result_before_any_event():
    data = _data(unsupported_result("concurrency_not_supported", "maxConcurrentInvocations is 2"))
    assert ([], 0, []) == (data["effects"], data["eligible"], data["decisions"])
    assert "concurrency_not_supported" == data["end"]["cause"]


def test_the_same_plan_gives_the_same_log():
    """Runs are deterministic: one plan twice, byte-identical results."""
    import uuid

    def body(loop):
        with loop.invocation("msg-1#1"):
            loop.call(lambda: loop.effect_point("DB:t", "put", {"id": str(uuid.uuid4())}, WRITE_FAULTS, lambda: ({}, None)))

    plan = _plan({"kind": "seeded", "faults": {"0": 7}})
    first, _ = _run(plan, body)
    second, _ = _run(plan, body)
    assert _data(first.result()) == _data(second.result())


def test_plan_data_accepts_a_dict_or_an_object_with_to_data():
    class Plan:
        def to_data(self):
            return {"x": 1}

    assert {"x": 1} == plan_data(Plan())
    with pytest.raises(TypeError):
        plan_data(object())


# --- the watchdog ------------------------------------------------------------------------


def _stuck_loop(make_handler, threshold_s=0.2):
    loop = RunLoop.from_plan(_plan())
    loop.stuck_threshold_s = threshold_s

    def body(running):
        with running.invocation("msg-1#1"):
            running.call(make_handler(running))

    loop.run(body)
    return loop


def test_a_handler_that_never_reaches_an_effect_is_cpu_bound():
    """A loop without effects is interrupted: UNSUPPORTED cpu_bound, naming the invocation and its last effect."""
    def spinning(loop):
        def spin():
            loop.effect_point("DB:t", "put", {}, (), lambda: ({"ok": True}, None))
            while True:
                pass

        return spin

    loop = _stuck_loop(spinning)
    end = loop.end
    assert ("unsupported", "cpu_bound") == (end["kind"], end["cause"])
    assert "msg-1#1" in end["detail"]
    assert "its last effect was DB:t put #0" in end["detail"]


def test_a_handler_that_swallows_the_interruption_is_still_cpu_bound():
    """except BaseException around the loop does not hide it: the cause is kept, the next interruption ends it."""
    swallowed = []

    def stubborn():
        try:
            while True:
                pass
        except BaseException as error:  # noqa: BLE001 - what a careless handler does
            swallowed.append(type(error).__name__)
        while True:
            pass

    end = _stuck_loop(lambda loop: stubborn).end
    assert ["HandlerStuck"] == swallowed
    assert "cpu_bound" == end["cause"]
    assert "it had reached no effect" in end["detail"]


def _busy(seconds):
    """Real time passing inside an effect (time.sleep is virtual on the run's thread)."""
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        pass


def test_slow_effects_do_not_count():
    """An effect's own I/O disarms the watchdog."""

    loop = RunLoop.from_plan(_plan())
    loop.stuck_threshold_s = 0.1

    def handler():
        for _ in range(3):
            loop.effect_point("DB:t", "put", {}, (), lambda: (_busy(0.15) or {"ok": True}, None))
        return "done"

    outcomes = []

    def body(running):
        with running.invocation("msg-1#1"):
            outcomes.append(running.call(handler))

    loop.run(body)
    assert "completed" == loop.end["kind"]
    assert "returned" == outcomes[0].kind


@pytest.mark.parametrize(
    ("bounds", "threshold_s"),
    [
        # The resolved effect hang bound, not the exploration budget beside it.
        ({"budgetMs": 600_000, "effectHangMs": 20_000}, 20.0),
        ({"budgetMs": 5_000, "effectHangMs": 60_000}, 60.0),
        # Below the floor, down to the least the bound may be: the floor.
        ({"budgetMs": 600_000, "effectHangMs": 500}, 10.0),
        ({"budgetMs": 600_000, "effectHangMs": 1}, 10.0),
    ],
)
def test_the_stuck_threshold_is_the_plans_effect_hang_bound(bounds, threshold_s):
    plan = _plan()
    plan["scenario"] = {"bounds": bounds}
    assert threshold_s == RunLoop.from_plan(plan).stuck_threshold_s


def test_a_plan_without_its_effect_hang_bound_is_refused_naming_it():
    """with_bounds writes effectHangMs into every plan; one without it is Eutaxy's bug, never the floor."""
    plan = _plan()
    plan["scenario"] = {"bounds": {"budgetMs": 600_000}}
    with pytest.raises(ValueError, match="plan: scenario.bounds.effectHangMs: expected a positive integer"):
        RunLoop.from_plan(plan)



# --- the invocation's time limit ------------------------------------------------------------


def _limited(handler_of, timeout_ms, threshold_s=10.0):
    """One invocation with a time limit; returns the loop and the call's outcome."""
    loop = RunLoop.from_plan(_plan())
    loop.stuck_threshold_s = threshold_s
    outcomes = []

    def body(running):
        with running.invocation("msg-1#1", timeout_ms=timeout_ms):
            outcomes.append(running.call(handler_of(running)))

    loop.run(body)
    return loop, outcomes[0]


def test_a_handler_computing_past_its_limit_is_stopped_and_timed_out_not_cpu_bound():
    """Its own CPU time counts toward the limit: stopped there, the run goes on (no cpu_bound, though the loop never ends)."""
    import time

    def spinning(loop):
        def spin():
            loop.effect_point("DB:t", "put", {}, (), lambda: ({"ok": True}, None))
            while True:
                time.thread_time()

        return spin

    loop, outcome = _limited(spinning, timeout_ms=300)
    assert "completed" == loop.end["kind"]
    assert "timed_out" == outcome.kind
    assert 1 == sum(1 for effect in loop.effects if effect.kind == "result")


def test_a_sleep_reaching_the_limit_stops_there_in_virtual_time():
    """time.sleep is virtual: a sleep past the limit ends the invocation at the limit's virtual time, every run alike."""
    import time

    after = []

    def sleeper(loop):
        def handler():
            time.sleep(1)
            after.append(loop.now_ms)
            time.sleep(5)
            after.append("never")

        return handler

    loop, outcome = _limited(sleeper, timeout_ms=3000)
    assert "timed_out" == outcome.kind
    assert [VIRTUAL_EPOCH_MS + 1000] == after
    assert VIRTUAL_EPOCH_MS + 3000 == loop.now_ms


def test_an_effect_point_reached_past_the_limit_is_not_performed_and_a_swallowed_stop_stays_a_timeout():
    """The limit is checked where virtual time moves; a handler catching the stop and returning still timed out."""
    import time

    performed = []

    def late(loop):
        def handler():
            try:
                time.sleep(3)
            except BaseException:  # noqa: BLE001 - what a careless handler does
                pass
            loop.effect_point("DB:t", "put", {}, (), lambda: (performed.append(1) or {"ok": True}, None))
            return "done"

        return handler

    loop, outcome = _limited(late, timeout_ms=3000)
    assert "timed_out" == outcome.kind
    assert [] == performed
    assert [] == loop.effects


def test_within_its_limit_a_handler_returns_as_before():
    def quick(loop):
        return lambda: loop.effect_point("DB:t", "put", {}, (), lambda: ({"ok": True}, "v"))[1]

    loop, outcome = _limited(quick, timeout_ms=3000)
    assert ("returned", "v") == (outcome.kind, outcome.value)


RUN_LIMIT_VECTORS = json.loads((pathlib.Path(verdicts.__file__).with_name("vectors") / "run_limit.json").read_text(encoding="utf-8"))


def test_a_runs_own_limit_from_its_effect_hang_bound_is_cores():
    """run_limit_ms holds core's vector file (the Cloudflare runtime reads the same one)."""
    for effect_hang_ms, limit_ms in RUN_LIMIT_VECTORS["cases"]:
        assert limit_ms == run_limit_ms(effect_hang_ms), effect_hang_ms


def test_a_handler_that_keeps_making_effects_ends_the_run_at_its_own_limit(monkeypatch):
    """Every effect resets the hang watchdog, so only the run's own limit stops an endless loop of effects."""
    clock = [1000.0]
    monkeypatch.setattr(runloop.time, "monotonic", lambda: clock[0])
    calls = []

    def body(loop):
        def handler():
            while True:
                clock[0] += 1.0  # one real second per effect
                loop.effect_point("DynamoDB:orders", "PutItem", {}, WRITE_FAULTS, lambda: (calls.append(1) or {"ok": True}, None))

        with loop.invocation("msg-1#1"):
            return loop.call(handler)

    loop, _ = _run(_plan(), body)
    assert "unsupported" == loop.end["kind"]
    assert "run_time_limit" == loop.end["cause"]
    assert loop.end["detail"].startswith(
        "the run went on past its own limit of 30000 ms of real time (3 times the effect hang bound, effectHangMs 10000); "
        "msg-1#1 was still running (the last effect: DynamoDB:orders PutItem #29; it was about to make DynamoDB:orders PutItem)"
    )
    assert 30 == len(calls)
