"""Regression tests: replay a shrunk schedule on a scenario and expect its invariants to hold.

The pytest file the report writes for a violation calls ``expect_holds``; it fails while
the bug exists (the replay still violates) and passes once the handler is fixed.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from eutaxy.engine.scenario_file import import_scenario

from eutaxy.aws.platform import create_platform

__all__ = ["expect_holds", "load_scenario"]


def load_scenario(scenario_path: str) -> dict[str, Any]:
    """Run a ``*.sim.py`` file and return its module-level ``scenario`` (engine's one loader)."""
    return import_scenario(scenario_path, platform="aws")


def expect_holds(
    scenario_path: str,
    *,
    schedule: Mapping[str, Any],
    events: Sequence[str] | None,
    seed: str,
) -> dict[str, Any]:
    """Replay ``schedule`` on ``events`` of the scenario; raise AssertionError unless it holds.

    Returns the replay (``{"result", "violations"}``) when every invariant held.
    """
    from eutaxy.engine.check import replay_scenario  # noqa: PLC0415 (keeps import light)

    scenario = load_scenario(scenario_path)
    platform = create_platform(scenario)
    try:
        replayed = replay_scenario(scenario, platform, dict(schedule), seed=seed, events=events)
    finally:
        platform.close()
    end = replayed["result"]["end"]
    if end.get("kind") != "completed":
        raise AssertionError(f"the replay ended {end.get('kind')}: {end.get('cause')}: {end.get('detail')}")
    if replayed["violations"]:
        messages = "; ".join(violation["message"] for violation in replayed["violations"])
        raise AssertionError(f"the replayed schedule still breaks the scenario: {messages}")
    return replayed
