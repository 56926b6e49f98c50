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
def test_a_handler_allocating_without_end_is_out_of_memory_in_its_own_process(plan, monkeypatch):
    """Memory the invocation holds, then memory the module keeps: out_of_memory each time, the checker goes on."""
    monkeypatch.setenv(child.MEMORY_ENV, str(SMALL_MEMORY_MB))
    with create_platform(_scenario([{"action": "hoard"}])) as platform:
        assert platform.describe()["assumptions"][0] == child.process_sentence(SMALL_MEMORY_MB)
        kind, cause, detail = _end(platform.run(plan(_scenario([{"action": "hoard"}]))))
        assert ("unsupported", "out_of_memory") == (kind, cause)
        assert detail.startswith("msg-1#1 ran out of memory (MemoryError at handlers/unruly.py:")
        assert f"limited to {SMALL_MEMORY_MB} MiB of address space" in detail
        kind, cause, detail = _end(platform.run(plan(_scenario([{"action": "hoard_module"}]))))
        assert ("unsupported", "out_of_memory") == (kind, cause)
        assert f"{SMALL_MEMORY_MB} MiB" in detail
        # Whether the module's hoard let the process answer or not, the next run is a fresh one's.
        again = platform.run(plan(_scenario([{"id": "after"}])))
        assert "completed" == again.end.kind


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
