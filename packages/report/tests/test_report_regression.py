"""The regression emitter writes a pytest file that replays the shrunk schedule."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import report_verdicts as verdicts

from eutaxy.report.regression import regression_test_path, regression_test_source, write_regression_test


def test_test_path_sits_beside_the_scenario_with_a_name_pytest_collects(tmp_path):
    """queue-duplicate-write.sim.py gives queue_duplicate_write_regression_test.py beside it."""
    path = regression_test_path(tmp_path / "queue-duplicate-write.sim.py")
    assert tmp_path / "queue_duplicate_write_regression_test.py" == path
    assert path.name.endswith("_test.py")


def test_source_is_valid_python_importing_expect_holds_with_the_schedule():
    """The test imports expect_holds from the platform and passes schedule, events and seed."""
    verdict = verdicts.violated()
    source = regression_test_source(verdict, scenario_path=Path("/s/queue-duplicate-write.sim.py"), platform="cloudflare")
    tree = ast.parse(source)
    imports = [node for node in tree.body if isinstance(node, ast.ImportFrom)]
    assert ("eutaxy.cloudflare", ["expect_holds"]) in [(node.module, [a.name for a in node.names]) for node in imports]
    values = {
        node.targets[0].id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
    }
    assert verdict["schedule"] == ast.literal_eval(values["SCHEDULE"])
    assert ["msg-1"] == ast.literal_eval(values["EVENTS"])
    assert "queue-duplicate-write" == ast.literal_eval(values["SEED"])
    assert "queue-duplicate-write.sim.py" == ast.literal_eval(values["SCENARIO"].right)
    tests = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
    assert ["test_queue_duplicate_write_regression"] == tests
    assert "# Invariant broken: one-payment-per-order (at_most_once_per_key)" in source
    assert '#   key "o-1" was written 2 times' in source


def test_platform_arguments_the_check_ran_with_are_passed_to_expect_holds():
    """Arguments such as a Cloudflare check's env reach expect_holds as keywords, in name order."""
    verdict = verdicts.violated()
    source = regression_test_source(
        verdict, scenario_path=Path("/s/q.sim.py"), platform="cloudflare", arguments={"env": "staging"}
    )
    call = "expect_holds(str(SCENARIO), schedule=SCHEDULE, events=EVENTS, seed=SEED, env='staging')"
    assert call in source
    plain = regression_test_source(verdict, scenario_path=Path("/s/q.sim.py"), platform="cloudflare")
    assert "expect_holds(str(SCENARIO), schedule=SCHEDULE, events=EVENTS, seed=SEED)" in plain


def test_scenario_is_named_relative_to_the_test_file():
    """A test written elsewhere names the scenario by a relative path."""
    source = regression_test_source(
        verdicts.violated(),
        scenario_path=Path("/p/scenarios/a.sim.py"),
        platform="aws",
        test_path=Path("/p/tests/a_regression_test.py"),
    )
    assert 'Path(__file__).parent / "../scenarios/a.sim.py"' in source.replace("'", '"')
    assert "from eutaxy.aws import expect_holds" in source


def test_only_a_violated_verdict_with_schedule_and_seed_gets_a_test():
    """Bounded verdicts and verdicts missing replay data are refused."""
    with pytest.raises(ValueError):
        regression_test_source(verdicts.bounded(), scenario_path="a.sim.py", platform="cloudflare")
    broken = verdicts.violated()
    del broken["provenance"]["seed"]
    with pytest.raises(ValueError):
        regression_test_source(broken, scenario_path="a.sim.py", platform="cloudflare")
    with pytest.raises(ValueError):
        regression_test_source(verdicts.violated(), scenario_path="a.sim.py", platform="Not A Platform")


def test_hostile_text_in_the_verdict_cannot_break_the_source():
    """Quotes, newlines and control characters in names and messages stay inert."""
    verdict = verdicts.violated()
    verdict["violation"]["message"] = 'ends """ here\n\x00 and \\ then'
    verdict["violation"]["invariant"] = "x\r\ny"
    verdict["provenance"]["seed"] = "seed\"'\n"
    verdict["keptEvents"] = ['a"b', "c\\d"]
    source = regression_test_source(verdict, scenario_path='we"ird name.sim.py', platform="cloudflare")
    tree = ast.parse(source)
    values = {n.targets[0].id: n.value for n in tree.body if isinstance(n, ast.Assign)}
    assert "seed\"'\n" == ast.literal_eval(values["SEED"])
    assert ['a"b', "c\\d"] == ast.literal_eval(values["EVENTS"])


def test_written_test_fails_while_the_bug_exists_and_passes_once_fixed(tmp_path):
    """Run the emitted file under pytest against a stand-in platform module.

    The stand-in's expect_holds fails when the scenario file says the bug is there, so the
    same emitted test goes from failing to passing when only the scenario changes.
    """
    (tmp_path / "fakeplat.py").write_text(
        textwrap.dedent(
            """
            from pathlib import Path
            CALLS = []
            def expect_holds(scenario_path, *, schedule, events, seed):
                assert Path(scenario_path).is_file(), scenario_path
                assert schedule["faults"][0]["fault"] == "crash_after"
                assert events == ["msg-1"] and seed == "queue-duplicate-write"
                if "BUG" in Path(scenario_path).read_text():
                    raise AssertionError("one-payment-per-order broke on replay")
            """
        )
    )
    scenario = tmp_path / "queue-duplicate-write.sim.py"
    scenario.write_text("# BUG\nscenario = {}\n")
    written = write_regression_test(verdicts.violated(), scenario, "cloudflare", module="fakeplat")
    assert tmp_path / "queue_duplicate_write_regression_test.py" == written
    assert [written.name] == [p.name for p in tmp_path.glob("*regression*")]  # no temp file left

    def run() -> int:
        # This process's sys.path carries pytest wherever it came from (a venv, Bazel's runfiles).
        path = os.pathsep.join([str(tmp_path)] + [entry for entry in sys.path if entry])
        env = dict(os.environ, PYTHONPATH=path, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
            cwd=tmp_path, env=env, capture_output=True, text=True,
        ).returncode

    assert 1 == run()
    scenario.write_text("# fixed\nscenario = {}\n")
    assert 0 == run()


def test_write_replaces_an_older_test_atomically(tmp_path):
    """A second violation overwrites the test in one rename."""
    scenario = tmp_path / "a.sim.py"
    scenario.write_text("scenario = {}\n")
    first = write_regression_test(verdicts.violated(), scenario, "cloudflare")
    verdict = verdicts.violated()
    verdict["provenance"]["seed"] = "other"
    second = write_regression_test(verdict, scenario, "cloudflare")
    assert first == second
    assert "SEED = 'other'" in second.read_text()
    assert 1 == len(list(tmp_path.glob("*_regression_test.py*")))
