"""End to end: ``eutaxy check --env NAME`` on a real Worker in workerd, configured by wrangler.toml.

``env_e2e/`` is the planted payments consumer whose wrangler.toml binds its database and
queue only in ``env.staging`` (the top level binds none), so the scenario checks only as
that environment. The written
regression test carries the environment, so it replays what the check explored. The pinned
Node toolchain is required: this test fails rather than skips without it.
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest


@pytest.fixture
def scenario_path(copy_example) -> Path:
    return copy_example("env_e2e") / "pay.sim.py"


def test_env_checks_the_environment_and_the_regression_test_keeps_it(scenario_path, run_cli):
    """--env staging finds the bug; the regression test names env='staging' and fails while the bug is there."""
    result = run_cli("check", str(scenario_path), "--env", "staging", "--max-runs", "40", "--budget-ms", "120000", "--json")
    assert 1 == result.code, result.stderr
    data = json.loads(result.stdout)
    assert "payment-recorded-once" == data["violation"]["invariant"]
    assert any("environment 'staging' of wrangler.toml" in sentence for sentence in data["provenance"]["assumptions"])
    written = Path(data["regressionTest"])
    source = written.read_text()
    assert "env='staging'" in source
    tests = [test for name, test in runpy.run_path(str(written)).items() if name.startswith("test_")]
    with pytest.raises(AssertionError):
        tests[0]()


def test_without_env_the_top_level_binds_nothing_and_an_unknown_env_names_the_known(scenario_path, run_cli):
    """The top level has no D1 binding (exit 2); --env prod is exit 2 naming 'staging'; nothing is written."""
    top = run_cli("check", str(scenario_path), "--max-runs", "4")
    assert 2 == top.code
    assert "D1 binding 'DB', which wrangler.toml does not declare" in top.stderr
    unknown = run_cli("check", str(scenario_path), "--env", "prod", "--max-runs", "4")
    assert 2 == unknown.code
    assert "there is no environment 'prod'; it defines 'staging'" in unknown.stderr
    assert [] == list(scenario_path.parent.glob("*_regression_test.py"))


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (lambda text: text.replace('name = "pay"', 'name = "pay'), "wrangler.toml:3:"),
        (lambda text: text.replace('"2026-01-01"', '"2026-02-30"'), "compatibility_date must be a calendar date written YYYY-MM-DD"),
    ],
)
def test_a_broken_toml_or_a_date_that_is_not_one_exits_2_naming_the_file(scenario_path, run_cli, edit, words):
    """A TOML syntax error names the file and line; a compatibility_date that is no date names the file and what came."""
    config = scenario_path.parent / "wrangler.toml"
    config.write_text(edit(config.read_text()))
    result = run_cli("check", str(scenario_path), "--env", "staging", "--max-runs", "4")
    assert 2 == result.code
    assert words in result.stderr and "wrangler.toml" in result.stderr
