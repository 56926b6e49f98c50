"""The handler's own process (``eutaxy.aws.child``): same answers, and the checker outlives what the handler does.

A run in the handler's process answers with the bytes a run in this process gives; a handler
blocked in C is killed at the answer limit (made short here) and the next run starts a fresh
process; a handler that allocates without end runs out of memory in its own process, and
one that dies takes only its process with it.
"""

import pytest

from eutaxy.aws import AwsPlatform, create_platform, define_scenario, dynamodb_table, handler, sqs
from eutaxy.aws import child
from eutaxy.core.errors import UserError

#: The smallest limit the handler's process may have: hoarding reaches it soonest.
SMALL_MEMORY_MB = child.MEMORY_LIMIT_MB_MIN


def _scenario(bodies, path="./handlers/unruly.py"):
    return define_scenario(
        name="unruly",
        handler=handler(path, "handler", timeout_ms=1000),
        drive=sqs("jobs", bodies, max_receive_count=2, batch_size=1),
        setup=[dynamodb_table("items", {"id": "HASH"})],
        bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 1},
    )


def _end(result):
    end = result.to_data()["end"]
    return end["kind"], end.get("cause"), end.get("detail", "")


@pytest.fixture(name="scenario_root")
def scenario_root_fixture(monkeypatch):
    from pathlib import Path

    monkeypatch.chdir(Path(__file__).parent)


@pytest.mark.usefixtures("scenario_root")
def test_a_run_in_the_handler_process_answers_as_in_this_process(plan):
    """The same plan, with a fault and the probe's own module state, gives the same RunResult data."""
    scenario = _scenario([{"id": "a"}, {"id": "b"}], path="./handlers/probe.py")
    faulted = plan(scenario, faults=[("msg-1#1", 0, "ambiguous")])
    clean = plan(scenario)
    with AwsPlatform.start(scenario) as here:
        expected = [here.run(faulted).to_data(), here.run(clean).to_data()]
    with create_platform(scenario) as there:
        assert isinstance(there, child.HandlerProcess)
        answered = [there.run(faulted).to_data(), there.run(clean).to_data()]
        described = there.describe()
    assert expected == answered
    assert described["assumptions"][0] == child.process_sentence(child.MEMORY_LIMIT_MB_DEFAULT)


@pytest.mark.usefixtures("scenario_root")
def test_a_handler_blocked_in_c_is_killed_and_the_next_run_starts_afresh(plan, monkeypatch):
    """A handler reading a socket nobody writes to: handler_unresponsive at the answer limit, then a cold start."""
    monkeypatch.setattr(child, "answer_limit_ms", lambda effect_hang_ms: 3000)
    with create_platform(_scenario([{"action": "block"}])) as platform:
        kind, cause, detail = _end(platform.run(plan(_scenario([{"action": "block"}]))))
        assert ("unsupported", "handler_unresponsive") == (kind, cause)
        assert "gave no answer within 3000 ms of real time" in detail
        assert "Eutaxy killed it" in detail
        again = platform.run(plan(_scenario([{"id": "after"}])))
        assert "completed" == again.end.kind
        assert any(e["op"] == "PutItem" and e["kind"] == "result" for e in again.effects)


@pytest.mark.usefixtures("scenario_root")
def test_a_handler_allocating_without_end_fails_its_invocation_and_the_run_goes_on(plan, monkeypatch):
    """Out of memory is the invocation's failure (Lambda's Runtime.OutOfMemory): crashed, MemoryError named at
    the handler's line with the limit, the message redelivered; the run completes and the checker goes on.
    Memory the module keeps is let go with the process, which the next run starts afresh."""
    monkeypatch.setenv(child.MEMORY_ENV, str(SMALL_MEMORY_MB))
    scenario = _scenario([{"action": "hoard"}])
    with create_platform(scenario) as platform:
        assert platform.describe()["assumptions"][0] == child.process_sentence(SMALL_MEMORY_MB)
        result = platform.run(plan(scenario))
        assert "completed" == result.end.kind
        ended = [(one.invocation, one.outcome, one.error.name) for one in result.invocations]
        assert [("msg-1#1", "crashed", "MemoryError"), ("msg-1#2", "crashed", "MemoryError")] == ended
        error = result.invocations[0].error
        assert error.message.startswith(f"out_of_memory: the invocation ran out of memory: its process is limited to "
                                        f"{SMALL_MEMORY_MB} MiB of address space (the checker's limit")
        assert "Runtime.OutOfMemory" in error.message
        assert error.at is not None and error.at.startswith("handlers/unruly.py:")
        retries = [e for e in result.effects if e["op"] == "retry" and e["kind"] == "call"]
        assert retries and all(e["payload"]["args"]["reason"] == "crashed" for e in retries)
        # The module's hoard outlives the invocation, not the process: the next run's is fresh.
        hoarded = platform.run(plan(_scenario([{"action": "hoard_module"}])))
        assert hoarded.invocations and hoarded.invocations[0].error.name == "MemoryError", hoarded.to_data()["end"]
        again = platform.run(plan(_scenario([{"id": "after"}])))
        assert "completed" == again.end.kind
        assert [("msg-1#1", "returned")] == [(one.invocation, one.outcome) for one in again.invocations]
        put = next(e for e in again.effects if e["op"] == "PutItem" and e["kind"] == "call")
        assert {"id": "after", "calls": 1} == put["payload"]["args"]["Item"]


@pytest.mark.usefixtures("scenario_root")
def test_a_handler_that_kills_its_process_ends_the_run(plan):
    """SIGSEGV in the handler's process: handler_process_ended, naming the signal; the next run starts afresh."""
    with create_platform(_scenario([{"action": "segv"}])) as platform:
        kind, cause, detail = _end(platform.run(plan(_scenario([{"action": "segv"}]))))
        assert ("unsupported", "handler_process_ended") == (kind, cause)
        assert "killed by SIGSEGV" in detail
        assert "completed" == platform.run(plan(_scenario([{"id": "after"}]))).end.kind


@pytest.mark.parametrize("given", ["1G", "0", "100"])
def test_a_memory_limit_that_is_no_number_of_mib_is_the_users_error(given, monkeypatch):
    monkeypatch.setenv(child.MEMORY_ENV, given)
    with pytest.raises(UserError, match=f"EUTAXY_HANDLER_MEMORY_MB is '{given}'; expected a whole number of MiB, at least 512"):
        child.memory_limit_mb()


def test_the_answer_limit_outlasts_the_run_limit_and_the_watchdog():
    """80 s by default: past the run's own limit (30 s) and the watchdog's real-time look (40 s), under two minutes."""
    assert 80_000 == child.answer_limit_ms(10_000)
    assert child.answer_limit_ms(60_000) == 3 * 60_000 + 4 * 60_000 + child.RESET_GRACE_MS


@pytest.mark.usefixtures("scenario_root")
def test_memory_the_module_keeps_leaves_room_for_the_next_calls_watchdog(plan, monkeypatch):
    """The module keeps memory up to the limit and its invocation returns (the MemoryError is its own). The next
    call's watchdog thread needs a fresh stack (a bigger one here, as when the last call's thread has not yet handed
    its back) and gets it from Eutaxy's reserve beyond the handler's limit: the next invocation runs, where the
    checker failed with ``can't start new thread`` (exit 3)."""
    monkeypatch.setenv(child.MEMORY_ENV, str(SMALL_MEMORY_MB))
    scenario = _scenario([{"action": "hoard_kept"}, {"action": "none"}])
    with create_platform(scenario) as platform:
        result = platform.run(plan(scenario))
    assert "completed" == result.end.kind, result.to_data()["end"]
    assert [("msg-1#1", "returned"), ("msg-2#1", "returned")] == [(one.invocation, one.outcome) for one in result.invocations]


@pytest.mark.usefixtures("scenario_root")
def test_a_handler_with_no_room_for_a_thread_runs_out_of_memory(plan, monkeypatch):
    """Threads until there is no room for another's stack: ``can't start new thread`` under the limit is the
    invocation's out of memory (Runtime.OutOfMemory), crashed and redelivered, not an error of the handler's."""
    monkeypatch.setenv(child.MEMORY_ENV, str(SMALL_MEMORY_MB))
    scenario = _scenario([{"action": "threads"}])
    with create_platform(scenario) as platform:
        result = platform.run(plan(scenario))
    assert "completed" == result.end.kind, result.to_data()["end"]
    ended = [(one.invocation, one.outcome, one.error.name) for one in result.invocations]
    assert [("msg-1#1", "crashed", "RuntimeError"), ("msg-1#2", "crashed", "RuntimeError")] == ended
    error = result.invocations[0].error
    assert error.message.startswith(
        "out_of_memory: the invocation ran out of memory (can't start new thread: no room for a thread's stack): "
        f"its process is limited to {SMALL_MEMORY_MB} MiB of address space"
    )
    assert error.at is not None and error.at.startswith("handlers/unruly.py:")


def test_a_thread_that_could_not_start_far_below_the_limit_is_not_out_of_memory():
    """EAGAIN from a limit on the number of threads reads the same; only near the address-space limit is it memory."""
    failed = RuntimeError("can't start new thread")
    assert not child.thread_out_of_memory(failed, None)
    assert not child.thread_out_of_memory(failed, 1 << 30)
    assert not child.thread_out_of_memory(RuntimeError("another"), 1)
    assert child.thread_out_of_memory(failed, 1)
