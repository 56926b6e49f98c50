"""The AWS platform under the engine's check: the module-state check and regression replays."""

import os

import pytest

from eutaxy.aws import (
    AwsPlatform,
    at_most_once_per_key,
    create_platform,
    define_scenario,
    dynamodb_rows,
    dynamodb_table,
    dynamodb_write,
    expect_holds,
    handler,
    sqs,
    unique,
)
from eutaxy.engine.bounds import resolve_bounds, with_bounds
from eutaxy.engine.check import check_scenario
from eutaxy.engine.plans import first_plan

SCENARIOS = os.path.join(os.path.dirname(__file__), "scenarios")


@pytest.mark.parametrize("name, handler_path, drive, invariant, bounds, runs, cause", [
    # The cache survives from run to run in the warm module, so replays in reverse differ.
    ("caching", "./handlers/caching.py", sqs("orders", [{"orderId": "o-1"}, {"orderId": "o-2"}]),
     at_most_once_per_key("once", dynamodb_write("items"), "args.Item.id"), {"maxFaultsPerRun": 0}, 4, "module_state_leak"),
    # The in-process run loop runs one invocation at a time.
    ("concurrent", "./handlers/probe.py", sqs("jobs", [{"id": "a"}, {"id": "b"}]),
     unique("one-row", dynamodb_rows("items"), "id"), {"maxConcurrentInvocations": 2}, 5, "concurrency_not_supported"),
])
def test_what_the_platform_cannot_control_is_unsupported_with_its_cause(name, handler_path, drive, invariant, bounds, runs, cause):
    """A handler caching state at module level, and a scenario asking for concurrency, end UNSUPPORTED naming why."""
    scenario = define_scenario(
        name=name,
        handler=handler(handler_path),
        drive=drive,
        setup=[dynamodb_table("items", {"id": "HASH"})],
        invariants=[invariant],
        bounds=bounds,
    )
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, seed=name, max_runs=runs, budget_ms=600_000)
    assert ("unsupported", cause) == (verdict["kind"], verdict["cause"]["kind"])


def test_expect_holds_fails_on_the_buggy_handler_and_passes_on_the_fixed_twin():
    """The regression test a violation writes: it replays the shrunk schedule on the kept events."""
    schedule = {"faults": [{"invocation": "msg-1#1", "ordinal": 0, "fault": "crash_after"}], "turns": []}
    with pytest.raises(AssertionError, match="entry-once"):
        expect_holds(os.path.join(SCENARIOS, "ledger.sim.py"), schedule=schedule, events=["msg-1"], seed="ledger")
    replayed = expect_holds(os.path.join(SCENARIOS, "ledger_fixed.sim.py"), schedule=schedule, events=["msg-1"], seed="ledger")
    assert [] == replayed["violations"]




def test_a_logged_cold_start_flag_is_not_module_state_and_replays_carry_the_output(plan):
    """Output is recorded in replayed runs only, so the module-state check compares behaviour."""
    scenario = define_scenario(
        name="cold",
        handler=handler("./handlers/cold_start.py"),
        drive=sqs("jobs", [{"n": 1}, {"n": 2}], batch_size=1),  # an invocation (and an output) per message
        setup=[dynamodb_table("items", {"id": "HASH"})],
        invariants=[unique("one-row-per-message", dynamodb_rows("items"), "id")],
    )
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, seed="cold", max_runs=6, budget_ms=600_000)
        replayed = platform.run(plan(scenario)).to_data()
    assert "bounded" == verdict["kind"], verdict.get("cause")
    outputs = [e["payload"]["args"]["text"] for e in replayed["effects"] if e["op"] == "output" and e["kind"] == "result"]
    assert ["cold_start=False\n", "cold_start=False\n"] == outputs


def _burning_scenario():
    return define_scenario(
        name="burns-cpu",
        handler=handler("./handlers/burns_cpu.py"),  # Lambda's default timeout, 3 s
        drive=sqs("orders", [{"orderId": "o-1"}], max_receive_count=5),
        setup=[dynamodb_table("items", {"id": "HASH"})],
        # The handler never gets to write: the invariant may look at nothing.
        invariants=[at_most_once_per_key("once", dynamodb_write("items"), "args.Item.id", allow_vacuous=True)],
        # One delivery per run, so a run costs one timeout (3 s of CPU), not the 20 s asked for.
        bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0},
    )


def test_a_handler_computing_past_its_3_s_timeout_is_a_recorded_timeout_under_any_budget():
    """20 s of CPU against Lambda's 3 s: stopped at the timeout and recorded (timed_out), never cpu_bound nor BOUNDED.

    Under the default budget and under 300 000 ms the verdict is the same (the budget is the
    only difference in it); the run's log records the timeout as the reason its message was
    not deleted. Runs are capped at one so the budget never decides when exploration stops.
    """
    scenario = _burning_scenario()
    with create_platform(scenario) as platform:
        verdicts = [
            check_scenario(scenario, platform, seed="burns-cpu", max_runs=1, budget_ms=budget_ms, module_state_runs=0)
            for budget_ms in (None, 300_000)
        ]
        run = platform.run(first_plan(with_bounds(scenario, resolve_bounds(scenario)), "burns-cpu", (), 0, max_short_batches=0)).to_data()
    # Every invocation timed out, so none worked: never BOUNDED (docs/engine.md, "Outcome counts").
    assert [("unsupported", "handler_never_succeeded")] * 2 == [(v["kind"], v["cause"]["kind"]) for v in verdicts]
    assert all(verdict["outcomes"][0]["timedOut"] > 0 for verdict in verdicts)
    for verdict in verdicts:
        del verdict["provenance"]["bounds"]["budgetMs"]
    assert verdicts[0] == verdicts[1]
    assert {"kind": "completed"} == run["end"]
    retries = [e for e in run["effects"] if e["op"] == "retry" and e["kind"] == "result"]
    assert ["timed_out"] == [r["payload"]["args"]["reason"] for r in retries]
    assert [] == [e for e in run["effects"] if e["target"] == "DynamoDB:items" and e["kind"] == "call"]


def test_exhaustive_enumeration_takes_every_short_batch_within_the_bound():
    """Three messages, one short batch per run: the first poll's options [3, 1, 2] are the three schedules.

    After a short batch the bound is spent, so the next poll of two offers none: the
    verdict names maxShortBatches among the bounds reached, and the assumption says what
    short batches mean.
    """
    scenario = define_scenario(
        name="short-batches",
        handler=handler("./handlers/batch.py"),
        drive=sqs("jobs", [{"id": "a"}, {"id": "b"}, {"id": "c"}]),
        setup=[dynamodb_table("items", {"id": "HASH"})],
        invariants=[at_most_once_per_key("once", dynamodb_write("items"), "args.Item.id")],
        bounds={"maxFaultsPerRun": 0, "maxShortBatches": 1},
    )
    with AwsPlatform.start(scenario) as platform:
        seen = platform.handler.__globals__["SEEN"]
        seen.clear()
        verdict = check_scenario(scenario, platform, seed="short-batches", exhaustive=True, max_runs=50, budget_ms=600_000)
    assert "bounded" == verdict["kind"], verdict.get("cause")
    assert {"completed": True, "schedules": 3, "reduction": True} == verdict["exhaustive"]
    groupings = {tuple(tuple(s["ids"]) for s in seen[index : index + 2]) for index in range(len(seen))}
    assert (("msg-1",), ("msg-2", "msg-3")) in groupings and (("msg-1", "msg-2"), ("msg-3",)) in groupings
    assert 1 == verdict["provenance"]["bounds"]["maxShortBatches"]
    assert "maxShortBatches" in verdict["provenance"]["boundsReached"]
    assert any(sentence.startswith("Batch compositions:") for sentence in verdict["provenance"]["assumptions"])
