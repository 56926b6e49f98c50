"""The pytest plugin, run as a user runs it: pytest in a subprocess, loaded with ``-p``.

The Bazel test environment turns plugin autoloading off, so the plugin is named with
``-p eutaxy.cli.pytest_plugin``; that the ``pytest11`` entry point names the same module is
checked on pyproject.toml. Collection runs over the whole planted-bug corpus; the checks run
on a representative subset (one Cloudflare and one AWS case, each bug and its fixed twin,
copied to a scratch folder so the regression tests are written there), since the whole
corpus takes about a minute. UNSUPPORTED, ``-x`` and ``-k`` are shown on the CLI tests'
stand-in platform, which needs no workerd.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from conftest import FAKE_PLATFORM_DIR, SCENARIO_TEMPLATE

PLUGIN = "eutaxy.cli.pytest_plugin"
PACKAGE = Path(__file__).absolute().parents[1]
SUBSET = ("queue-duplicate-write", "aws-lost-message")


def corpus() -> Path:
    for root in (Path.cwd(), PACKAGE.parents[1]):
        if (root / "corpus" / "planted-bugs").is_dir():
            return root / "corpus" / "planted-bugs"
    raise AssertionError("corpus/planted-bugs is not in the test's files")


def run_pytest(cwd: Path, *args: str, env: dict | None = None) -> tuple[subprocess.CompletedProcess, dict]:
    """pytest with the plugin in a subprocess; the outcome of each item by node id, from its JUnit XML."""
    xml = cwd / "outcomes.xml"
    command = [sys.executable, "-m", "pytest", "-p", PLUGIN, "-p", "no:cacheprovider", f"--junitxml={xml}",
               "-o", "junit_family=xunit1", *args]
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600,
                            env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", **(env or {})})
    outcomes = {}
    if xml.exists():
        for case in ElementTree.parse(xml).iter("testcase"):
            node = f"{case.get('file')}::{case.get('name')}"
            failed = case.find("failure")
            outcomes[node] = ("failed", failed.text or "") if failed is not None else (
                ("skipped", "") if case.find("skipped") is not None else ("passed", ""))
        xml.unlink()
    return result, outcomes


def test_the_entry_point_names_the_plugin():
    meta = tomllib.loads((PACKAGE / "pyproject.toml").read_text())["project"]
    assert meta["entry-points"]["pytest11"] == {"eutaxy": PLUGIN}


#: Scenarios of the corpus beside each case's bug and fixed twin, each one more bug item on purpose:
#: a wrangler.toml twin of a case's Worker, which must break as its JSONC scenario does.
EXTRA_SCENARIOS = ("queue-duplicate-write/queue-duplicate-write-toml.sim.py",)


def corpus_scenarios() -> list[Path]:
    """What the corpus must hold: for each case (a folder with its gate, test_*.py), the bug
    ``<case>/<case>.sim.py`` and its fixed twin, plus EXTRA_SCENARIOS."""
    cases = sorted(folder.name for folder in corpus().iterdir() if folder.is_dir() and any(folder.glob("test_*.py")))
    assert len(cases) >= 12, cases
    expected = [Path(case, f"{case}.sim.py") for case in cases] + [_fixed_twin(case) for case in cases]
    return sorted(expected + [Path(extra) for extra in EXTRA_SCENARIOS])


def _fixed_twin(case: str) -> Path:
    """``fixed/<case>-fixed.sim.py`` (the AWS cases name it ``fixed/<case>.sim.py``)."""
    plain = Path(case, "fixed", f"{case}.sim.py")
    return plain if (corpus() / plain).is_file() else Path(case, "fixed", f"{case}-fixed.sim.py")


def test_the_corpus_holds_each_cases_bug_and_twin_and_no_stray_scenario():
    """A new case is accounted for by its folder; a scenario of any other name is a mistake or an
    EXTRA_SCENARIOS entry, never silently one more failing item of ``pytest corpus/planted-bugs``."""
    found = sorted(path.relative_to(corpus()) for path in corpus().rglob("*.sim.py"))
    assert found == corpus_scenarios()


def test_every_scenario_of_the_planted_bug_corpus_is_collected_and_nothing_else(tmp_path):
    root = corpus().parents[1]
    scenarios = sorted(Path("corpus", "planted-bugs", path) for path in corpus_scenarios())
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", PLUGIN, "-p", "no:cacheprovider", "--collect-only", "-q",
         "-m", "eutaxy", "corpus/planted-bugs"],
        cwd=root, capture_output=True, text=True, timeout=300, env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    collected = sorted(line.partition("::")[0] for line in result.stdout.splitlines() if "::" in line)
    assert collected == [str(path) for path in scenarios], result.stdout + result.stderr
    # The corpus's own test_*.py gates are collected too, as ordinary tests outside the marker.
    summary = result.stdout.strip().splitlines()[-1]
    assert summary.startswith(f"{len(scenarios)}/") and "deselected" in summary, summary


#: The one-line summary of each SUBSET bug: its invariant and key.
HEADLINES = {"queue-duplicate-write": 'payment-recorded-once: "o-2" twice',
             "aws-lost-message": 'every-order-recorded: "o-1" lost'}


def test_each_bug_fails_with_its_report_and_regression_test_and_each_twin_passes(tmp_path):
    """Run twice in a row, as a user reruns: the regression tests the first run wrote are not
    more items in the second (each scenario's item replays its own), and the summary line of
    each bug starts with its invariant and key within 80 columns."""
    for case in SUBSET:
        # A case's wrangler.toml twin (*-toml.sim.py) is the corpus gate's: one bug per case here.
        shutil.copytree(corpus() / case, tmp_path / case,
                        ignore=shutil.ignore_patterns("__pycache__", "*_regression_test.py", "test_*.py", "*-toml.sim.py"))
    options = ("--eutaxy-max-runs", "100", "--eutaxy-budget-ms", "600000", "-rf", ".")
    result, outcomes = run_pytest(tmp_path, *options, env={"COLUMNS": "80"})
    again, outcomes_again = run_pytest(tmp_path, *options, env={"COLUMNS": "80"})
    assert sorted(outcomes_again) == sorted(outcomes), again.stdout
    assert {node: outcome for node, (outcome, _) in outcomes_again.items()} == {
        node: outcome for node, (outcome, _) in outcomes.items()}
    for run in (result, again):
        summary = run.stdout[run.stdout.index("short test summary info"):].splitlines()[1:-1]
        starts = sorted(f"{HEADLINES[case]} {case}/{case}.sim.py::{case}" for case in SUBSET)
        assert [line[: len(start)] for line, start in zip(sorted(summary), starts, strict=True)] == starts, summary
    assert result.returncode == 1, result.stdout + result.stderr
    bugs = {node: text for node, (outcome, text) in outcomes.items() if outcome == "failed"}
    twins = {node for node, (outcome, _) in outcomes.items() if outcome == "passed"}
    assert sorted(twins) == sorted(f"{case}/fixed/{twin.name}::{name}" for case in SUBSET
                                   for twin, name in [_twin(tmp_path / case)])
    assert sorted(bugs) == sorted(f"{case}/{case}.sim.py::{case}" for case in SUBSET)
    for case in SUBSET:
        text = bugs[f"{case}/{case}.sim.py::{case}"]
        assert text.startswith(f"VIOLATED  {case} ("), text[:200]
        written = tmp_path / case / f"{case.replace('-', '_')}_regression_test.py"
        assert f"Regression test written: {written}" in text
        assert f"Run it: {sys.executable} -m pytest {written.relative_to(tmp_path)}" in text
        assert written.is_file()


def _twin(case_dir: Path) -> tuple[Path, str]:
    (twin,) = (case_dir / "fixed").glob("*.sim.py")
    return twin, twin.name.removesuffix(".sim.py")


def fake_scenarios(folder: Path) -> dict:
    folder.mkdir()
    for file_name, mode in (("a-double-write", "buggy"), ("b-touches-ai", "ai"), ("c-idempotent", "idempotent")):
        (folder / f"{file_name}.sim.py").write_text(SCENARIO_TEMPLATE.format(name=file_name, mode=mode))
    return {"PYTHONPATH": os.pathsep.join([str(FAKE_PLATFORM_DIR), os.environ.get("PYTHONPATH", "")]),
            "EUTAXY_PLATFORM_MODULES": "testplatform=eutaxy_testplatform"}


def test_unsupported_fails_with_its_cause_and_options_reach_the_check(tmp_path):
    env = fake_scenarios(tmp_path / "sims")
    result, outcomes = run_pytest(tmp_path, "--eutaxy-seed", "plugin-seed", "--eutaxy-max-runs", "30", "sims", env=env)
    assert result.returncode == 1, result.stdout + result.stderr
    assert {node: outcome for node, (outcome, _) in outcomes.items()} == {
        "sims/a-double-write.sim.py::a-double-write": "failed",
        "sims/b-touches-ai.sim.py::b-touches-ai": "failed",
        "sims/c-idempotent.sim.py::c-idempotent": "passed",
    }
    unsupported = outcomes["sims/b-touches-ai.sim.py::b-touches-ai"][1]
    assert unsupported.startswith("UNSUPPORTED") and "binding_not_allowed" in unsupported
    violated = outcomes["sims/a-double-write.sim.py::a-double-write"][1]
    assert "seed: plugin-seed" in violated and "maxRuns 30" in violated
    assert (tmp_path / "sims" / "a_double_write_regression_test.py").is_file()


def test_x_stops_at_the_first_failure_and_k_selects(tmp_path):
    env = fake_scenarios(tmp_path / "sims")
    result, outcomes = run_pytest(tmp_path, "-x", "--eutaxy-max-runs", "30", "sims", env=env)
    assert result.returncode == 1 and list(outcomes) == ["sims/a-double-write.sim.py::a-double-write"], result.stdout
    result, outcomes = run_pytest(tmp_path, "-k", "idempotent", "--eutaxy-max-runs", "30", "sims", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert outcomes == {"sims/c-idempotent.sim.py::c-idempotent": ("passed", "")}


def test_a_bad_option_is_a_usage_error_naming_it(tmp_path):
    env = fake_scenarios(tmp_path / "sims")
    result, outcomes = run_pytest(tmp_path, "--eutaxy-max-runs", "none", "sims", env=env)
    assert result.returncode == 4 and outcomes == {}
    assert "--eutaxy-max-runs" in result.stderr and "expected a whole number above 0, got 'none'" in result.stderr


def test_cloudflare_check_returns_the_verdict_and_writes_nothing(tmp_path):
    from eutaxy.cloudflare import check

    case = "queue-duplicate-write"
    shutil.copytree(corpus() / case, tmp_path / case, ignore=shutil.ignore_patterns("__pycache__", "*_regression_test.py"))
    before = sorted(p.name for p in (tmp_path / case).iterdir())
    verdict = check(tmp_path / case / f"{case}.sim.py", max_runs=100, budget_ms=600000)
    assert verdict["kind"] == "violated" and verdict["provenance"]["seed"] == case
    assert sorted(p.name for p in (tmp_path / case).iterdir()) == before


def test_a_regression_test_is_replayed_by_its_scenarios_item_never_collected_beside_it(tmp_path):
    """The regression test a violation wrote is no item of its own while its scenario sits beside it:
    the scenario's item replays it once its check passes, and fails with the replay and the command
    that runs it. Named on the command line, or without the plugin, pytest collects it itself."""
    env = fake_scenarios(tmp_path / "sims")
    result, outcomes = run_pytest(tmp_path, "--eutaxy-max-runs", "30", "sims", env=env)
    written = tmp_path / "sims" / "a_double_write_regression_test.py"
    assert written.is_file() and outcomes["sims/a-double-write.sim.py::a-double-write"][0] == "failed"
    # One run finds no fault, so the check passes: the pinned schedule of the regression test still breaks it.
    result, outcomes = run_pytest(tmp_path, "--eutaxy-max-runs", "1", "-rf", "sims", env=env)
    assert sorted(outcomes) == sorted(f"sims/{name}.sim.py::{name}" for name in ("a-double-write", "b-touches-ai", "c-idempotent"))
    outcome, text = outcomes["sims/a-double-write.sim.py::a-double-write"]
    assert outcome == "failed", result.stdout
    assert text.startswith("1 invariant(s) broken when replaying a-double-write (testplatform):"), text
    assert "Shrunk trace (replayed; events kept: msg-1):" in text
    assert text.rstrip().endswith(f"Run it: {sys.executable} -m pytest sims/a_double_write_regression_test.py")
    assert "expect_holds(" not in text and "__tracebackhide__" not in text
    assert '\none-payment-per-order: "o-1" twice sims/a-double-write.sim.py::a-double-write' in result.stdout
    # Named, it is collected as any test module is, and its failure reads the same way.
    result, outcomes = run_pytest(tmp_path, "-rf", "sims/a_double_write_regression_test.py", env=env)
    (node,) = outcomes
    assert node == "sims/a_double_write_regression_test.py::test_a_double_write_regression", outcomes
    assert outcomes[node][1].startswith("1 invariant(s) broken when replaying a-double-write"), outcomes[node][1]
    # Once the bug is fixed, the scenario's item passes and so does its replay.
    scenario = tmp_path / "sims" / "a-double-write.sim.py"
    scenario.write_text(scenario.read_text().replace("mode='buggy'", "mode='idempotent'"))
    result, outcomes = run_pytest(tmp_path, "--eutaxy-max-runs", "1", "sims/a-double-write.sim.py", env=env)
    assert outcomes == {"sims/a-double-write.sim.py::a-double-write": ("passed", "")}, result.stdout


def test_under_xdist_each_worker_checks_its_own_scenarios(tmp_path):
    """``-n 2``: the items spread over two workers, each starting its own platform, with the
    same outcomes and summary lines as one process. pytest-xdist is not in the project's lock,
    so this runs where it is installed."""
    pytest.importorskip("xdist", reason="pytest-xdist is not installed (not in requirements.lock)")
    env = fake_scenarios(tmp_path / "sims")
    result, outcomes = run_pytest(tmp_path, "-p", "xdist.plugin", "-n", "2", "-rf", "--eutaxy-max-runs", "30", "sims", env=env)
    assert {node: outcome for node, (outcome, _) in outcomes.items()} == {
        "sims/a-double-write.sim.py::a-double-write": "failed",
        "sims/b-touches-ai.sim.py::b-touches-ai": "failed",
        "sims/c-idempotent.sim.py::c-idempotent": "passed",
    }, result.stdout + result.stderr
    assert '\none-payment-per-order: "o-1" twice sims/a-double-write.sim.py::a-double-write' in result.stdout
