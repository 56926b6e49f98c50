"""Regression tests: replay a shrunk schedule on a scenario and expect its invariants to hold.

The pytest file the report writes for a violation calls ``expect_holds``; it fails while
the bug exists (the replay still violates) and passes once the handler is fixed.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from eutaxy.engine import check as check_api
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
    events: Sequence[str] | None = None,
    seed: str | None = None,
) -> dict[str, Any]:
    """Replay ``schedule`` on ``events`` of the scenario; raise AssertionError unless it holds.

    ``eutaxy.engine.check.expect_holds`` on this platform. Returns the replay
    (``{"result", "violations"}``) when every invariant held.
    """
    __tracebackhide__ = True
    return check_api.expect_holds(
        scenario_path, load_scenario=load_scenario, create_platform=create_platform, schedule=schedule, events=events, seed=seed
    )


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
    return check_api.check_file(
        scenario_path, load_scenario=load_scenario, create_platform=create_platform, seed=seed,
        max_runs=max_runs, budget_ms=budget_ms, exhaustive=exhaustive, audit=audit,
    )
