"""What every planted-bug gate does: check a scenario file, replay one schedule on it, and
run the regression test a violation gives the user.

The platform comes from the scenario (``eutaxy.<platform>``), the seed from the file's
name, and runs are capped with a generous budget, so a verdict never depends on the
machine's speed. Nothing here skips: a gate that cannot run fails, because a planted bug
the checker cannot run is a miss.

``assert_regression_test_catches`` runs the test ``eutaxy check`` writes for a violation,
as written, against the buggy scenario (it must fail) and against the fixed twin (it must
pass): the gates then check the test a user gets, not only the verdicts.

Every verdict ``check_case`` gives is also held against its golden text report, the file
``<name>.report.txt`` beside the scenario ``<name>.sim.py``: the report ``eutaxy check``
prints, byte for byte, so a change to what a user reads shows in review as a change to that
file. The gate's own run is the one compared, so no check runs twice for it. With
``EUTAXY_UPDATE_GOLDEN=1`` in the environment the file is written instead (run the gates
with pytest from the checkout: ``EUTAXY_UPDATE_GOLDEN=1 python -m pytest corpus/planted-bugs``).
"""

from __future__ import annotations

import difflib
import importlib
import os
import runpy
import tempfile
from pathlib import Path

from eutaxy.core.canonical import to_json
from eutaxy.engine.check import check_scenario, replay_scenario
from eutaxy.engine.scenario_file import import_scenario

#: Wall time only decides when to stop; a gate's run cap always comes first.
BUDGET_MS = 600_000


#: Every gate's check is made again on this many jobs (``eutaxy check --jobs``) and must give the same JSON bytes.
JOBS = 2


def _open(path: str | Path):
    scenario = import_scenario(path)
    return scenario, _package(scenario).create_platform(scenario)


def _package(scenario: dict):
    return importlib.import_module(f"eutaxy.{scenario['platform']}")


def seed_of(path: str | Path) -> str:
    """The seed the CLI would use: the scenario file's name without ``.sim.py``."""
    return Path(path).name.removesuffix(".sim.py")


def check_case(
    path: str | Path, *, max_runs: int, budget_ms: int = BUDGET_MS, audit: bool = False, seed: str | None = None
) -> dict:
    """Check a case's scenario with the CLI's seed (the file's name) unless ``seed`` names another
    (a twin's), and hold its text report against the scenario's golden file."""
    scenario, platform = _open(path)
    options = {"seed": seed or seed_of(path), "max_runs": max_runs, "budget_ms": budget_ms, "audit": audit}
    try:
        verdict = check_scenario(scenario, platform, **options)
    finally:
        platform.close()
    assert_jobs_agree(verdict, scenario, options)
    assert_golden_report(verdict, path)
    return verdict


def assert_jobs_agree(verdict: dict, scenario: dict, options: dict) -> None:
    """The same check on ``JOBS`` jobs gives the verdict's JSON byte for byte.

    Every platform is a new one, as ``eutaxy check`` makes them, and the other jobs' are started
    before exploration (``eutaxy check`` starts them after the first run), so they run plans
    ahead from the second run on even in a check that ends soon.
    """
    package = _package(scenario)
    platform = package.create_platform(scenario)
    waiting = [package.create_platform(scenario) for _ in range(JOBS - 1)]
    try:
        in_jobs = check_scenario(scenario, platform, jobs=JOBS, create_platform=waiting.pop, **options)
    finally:
        platform.close()
        for unused in waiting:
            unused.close()
    one, many = to_json(verdict), to_json(in_jobs)
    if one != many:
        at = next(index for index, (a, b) in enumerate(zip(one + "\0", many + "\0")) if a != b)
        raise AssertionError(
            f"{JOBS} jobs gave other JSON than one job, from character {at}:\n"
            f"one job:  ...{one[max(0, at - 200):at + 200]}\n{JOBS} jobs: ...{many[max(0, at - 200):at + 200]}"
        )


#: Set to 1 to write each golden report from this run instead of comparing with it.
UPDATE_GOLDEN = "EUTAXY_UPDATE_GOLDEN"


def golden_path(path: str | Path) -> Path:
    """``<name>.report.txt`` beside the scenario ``<name>.sim.py``."""
    return Path(path).with_name(seed_of(path) + ".report.txt")


def assert_golden_report(verdict: dict, path: str | Path) -> None:
    """The verdict's text report is its golden file's text (or, with EUTAXY_UPDATE_GOLDEN=1, becomes it)."""
    from eutaxy.report.text import render_text

    text = render_text(verdict)
    golden = golden_path(path)
    if os.environ.get(UPDATE_GOLDEN, "") not in ("", "0"):
        golden.write_text(text, encoding="utf-8")
        return
    if not golden.is_file():
        raise AssertionError(f"{golden.name} is missing beside {Path(path).name}: write it with {UPDATE_GOLDEN}=1 "
                             "python -m pytest <this gate> (from the checkout), then read it before committing it")
    expected = golden.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(difflib.unified_diff(
            expected.splitlines(keepends=True), text.splitlines(keepends=True), f"{golden.name} (golden)", "this run's report"
        ))
        raise AssertionError(f"the text report differs from {golden.name} (if the change is meant, write it again "
                             f"with {UPDATE_GOLDEN}=1 and commit it):\n{diff}")


def assert_bounded_with_evidence(verdict: dict) -> None:
    """A twin's BOUNDED carries what it rests on: every invariant saw something, coverage, a passed audit."""
    assert "bounded" == verdict["kind"], verdict.get("cause") or verdict.get("violation")
    for counted in verdict["invariants"]:
        assert counted["effects"] or counted["rows"], counted
    if verdict["provenance"]["bounds"]["maxFaultsPerRun"] > 0:
        assert verdict["coverage"]["points"] and verdict["coverage"]["exercised"] > 0, verdict["coverage"]
    else:
        assert {"points": [], "pairs": 0, "exercised": 0, "missed": []} == verdict["coverage"]
    assert 0 == verdict["audit"]["differences"] and verdict["audit"]["reran"] > 0, verdict["audit"]


def replay_case(path: str | Path, schedule: dict) -> dict:
    scenario, platform = _open(path)
    try:
        return replay_scenario(scenario, platform, schedule, seed=seed_of(path))
    finally:
        platform.close()


def run_regression_test(verdict: dict, scenario_path: str | Path) -> None:
    """Write the regression test for ``verdict`` against ``scenario_path`` and run it (raises if it fails)."""
    from eutaxy.report.regression import regression_test_source

    scenario = import_scenario(scenario_path)
    with tempfile.TemporaryDirectory(prefix="eutaxy-regression-") as folder:
        test_path = Path(folder) / "planted_regression_test.py"
        test_path.write_text(
            regression_test_source(verdict, scenario_path=scenario_path, platform=scenario["platform"], test_path=test_path)
        )
        tests = [test for name, test in runpy.run_path(str(test_path)).items() if name.startswith("test_")]
        assert 1 == len(tests), tests
        tests[0]()


def assert_regression_test_catches(verdict: dict, buggy: str | Path, twin: str | Path) -> None:
    """The written regression test fails on the buggy scenario and passes on its fixed twin."""
    try:
        run_regression_test(verdict, buggy)
    except AssertionError:
        pass
    else:
        raise AssertionError(f"the regression test for {buggy} passed on the buggy scenario itself")
    run_regression_test(verdict, twin)
