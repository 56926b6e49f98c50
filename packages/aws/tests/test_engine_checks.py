"""The AWS platform under the engine's check: the module-state check and regression replays."""

import os

import pytest

from eutaxy.aws import (
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
from eutaxy.engine.check import check_scenario

SCENARIOS = os.path.join(os.path.dirname(__file__), "scenarios")


def test_a_handler_caching_state_at_module_level_is_unsupported_module_state_leak():
    """The cache survives from run to run in the warm module, so replays in reverse differ."""
    scenario = define_scenario(
        name="caching",
        handler=handler("./handlers/caching.py"),
        drive=sqs("orders", [{"orderId": "o-1"}, {"orderId": "o-2"}]),
        setup=[dynamodb_table("items", {"id": "HASH"})],
        invariants=[at_most_once_per_key("once", dynamodb_write("items"), "args.Item.id")],
        bounds={"maxFaultsPerRun": 0},
    )
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, seed="caching", max_runs=4, budget_ms=600_000)
    assert "unsupported" == verdict["kind"]
    assert "module_state_leak" == verdict["cause"]["kind"]


def test_expect_holds_fails_on_the_buggy_handler_and_passes_on_the_fixed_twin():
    """The regression test a violation writes: it replays the shrunk schedule on the kept events."""
    schedule = {"faults": [{"invocation": "msg-1#1", "ordinal": 0, "fault": "crash_after"}], "turns": []}
    with pytest.raises(AssertionError, match="entry-once"):
        expect_holds(os.path.join(SCENARIOS, "ledger.sim.py"), schedule=schedule, events=["msg-1"], seed="ledger")
    replayed = expect_holds(os.path.join(SCENARIOS, "ledger_fixed.sim.py"), schedule=schedule, events=["msg-1"], seed="ledger")
    assert [] == replayed["violations"]


def test_a_scenario_asking_for_concurrency_is_unsupported_under_check():
    scenario = define_scenario(
        name="concurrent",
        handler=handler("./handlers/probe.py"),
        drive=sqs("jobs", [{"id": "a"}, {"id": "b"}]),
        setup=[dynamodb_table("items", {"id": "HASH"})],
        invariants=[unique("one-row", dynamodb_rows("items"), "id")],
        bounds={"maxConcurrentInvocations": 2},
    )
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, seed="concurrent", max_runs=5, budget_ms=600_000)
    assert ("unsupported", "concurrency_not_supported") == (verdict["kind"], verdict["cause"]["kind"])


def test_a_logged_cold_start_flag_is_not_module_state_and_replays_carry_the_output(plan):
    """Output is recorded in replayed runs only, so the module-state check compares behaviour."""
    scenario = define_scenario(
        name="cold",
        handler=handler("./handlers/cold_start.py"),
        drive=sqs("jobs", [{"n": 1}, {"n": 2}]),
        setup=[dynamodb_table("items", {"id": "HASH"})],
        invariants=[unique("one-row-per-message", dynamodb_rows("items"), "id")],
    )
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, seed="cold", max_runs=6, budget_ms=600_000)
        replayed = platform.run(plan(scenario)).to_data()
    assert "bounded" == verdict["kind"], verdict.get("cause")
    outputs = [e["payload"]["args"]["text"] for e in replayed["effects"] if e["op"] == "output" and e["kind"] == "result"]
    assert ["cold_start=False\n", "cold_start=False\n"] == outputs
