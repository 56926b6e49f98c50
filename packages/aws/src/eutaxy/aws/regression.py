"""Regression tests: replay a shrunk schedule on a scenario and expect its invariants to hold.

The pytest file the report writes for a violation calls ``expect_holds``; it fails while
the bug exists (the replay still violates) and passes once the handler is fixed.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from eutaxy.engine.scenario_file import import_scenario

from eutaxy.aws.platform import create_platform

__all__ = ["check", "expect_holds", "load_scenario"]


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


def check(
    scenario_path: str,
    *,
    seed: str | None = None,
    max_runs: int | None = None,
    budget_ms: int | None = None,
    exhaustive: bool = False,
    audit: bool = False,
) -> dict[str, Any]:
    """Explore the scenario as ``eutaxy check`` does and return the verdict (a dict keyed by ``kind``).

    For a user's own tests: BOUNDED, VIOLATED and UNSUPPORTED are all returned, never
    raised. Nothing is written. The seed defaults to the file's name, as on the command line.
    """
    from pathlib import Path

    from eutaxy.engine.check import check_scenario  # noqa: PLC0415 (keeps import light)

    scenario = load_scenario(scenario_path)
    platform = create_platform(scenario)
    try:
        return check_scenario(scenario, platform, seed=seed if seed is not None else Path(scenario_path).name.removesuffix(".sim.py"),
                              max_runs=max_runs, budget_ms=budget_ms, exhaustive=exhaustive, audit=audit)
    finally:
        platform.close()
