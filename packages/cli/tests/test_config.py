"""The project config (``[tool.eutaxy]`` or ``eutaxy.toml``): found, obeyed, and refused when wrong.

Each test writes a scenario for the stand-in platform and config files around it in a
temporary tree, runs the real ``eutaxy check`` (or the loader), and reads the seed and
run count back from the JSON verdict, so what the config changed is seen in the output.
"""

from __future__ import annotations

import argparse
import json

import pytest

from eutaxy.cli.config import ProjectConfig, config_for, load_config, with_configured_provers
from eutaxy.cli.provers import provers_from_args
from eutaxy.core.errors import UserError


def _check(run_cli, path, *extra):
    result = run_cli("check", str(path), "--json", "--no-regression", *extra)
    return result, (json.loads(result.stdout) if result.stdout else None)


def test_seed_and_max_runs_come_from_eutaxy_toml_beside_the_scenario(testplatform, write_scenario, run_cli):
    """No flags: the seed and the run cap are the config's."""
    path = write_scenario("idempotent")
    path.with_name("eutaxy.toml").write_text('seed = "from-config"\nmax-runs = 3\nbudget-ms = 60000\n')
    result, data = _check(run_cli, path)
    assert 0 == result.code, result.stderr
    assert "from-config" == data["provenance"]["seed"]
    assert 3 >= data["provenance"]["runs"]
    # The provenance names the file and what it supplied; the text report says it too.
    assert {"file": "eutaxy.toml", "settings": ["seed", "budget-ms", "max-runs"]} == data["provenance"]["config"]
    text = run_cli("check", str(path), "--no-regression")
    assert "  settings from eutaxy.toml: seed, budget-ms, max-runs\n" in text.stdout


def test_a_flag_wins_over_the_config(testplatform, write_scenario, run_cli):
    """--seed on the command line beats the config's seed."""
    path = write_scenario("idempotent")
    path.with_name("eutaxy.toml").write_text('seed = "from-config"\nmax-runs = 3\n')
    result, data = _check(run_cli, path, "--seed", "from-flag")
    assert 0 == result.code, result.stderr
    assert "from-flag" == data["provenance"]["seed"]
    assert {"file": "eutaxy.toml", "settings": ["max-runs"]} == data["provenance"]["config"]


def test_a_config_further_up_is_named_by_its_path_from_the_scenario(testplatform, write_scenario, run_cli):
    """A config that supplied nothing is not named; one above the scenario's folder is named from it."""
    path = write_scenario("idempotent")
    path.with_name("eutaxy.toml").write_text('seed = "from-config"\n')
    result, data = _check(run_cli, path, "--seed", "s", "--max-runs", "3")
    assert "config" not in data["provenance"]
    inner = path.parent / "inner"
    inner.mkdir()
    moved = inner / path.name
    moved.write_text(path.read_text())
    result, data = _check(run_cli, moved, "--max-runs", "3")
    assert 0 == result.code, result.stderr
    assert {"file": "../eutaxy.toml", "settings": ["seed"]} == data["provenance"]["config"]


def test_without_a_config_the_seed_is_the_scenario_name(testplatform, write_scenario, run_cli):
    """The default stays what it was: the file's name without .sim.py."""
    path = write_scenario("idempotent")
    result, data = _check(run_cli, path, "--max-runs", "3")
    assert 0 == result.code, result.stderr
    assert "pay-once" == data["provenance"]["seed"]


def test_the_nearest_config_above_the_scenario_wins(tmp_path):
    """eutaxy.toml in the scenario's folder beats [tool.eutaxy] further up; configs are not merged."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.eutaxy]\nseed = "outer"\nmax-runs = 9\n')
    inner = tmp_path / "checks" / "orders"
    inner.mkdir(parents=True)
    scenario = inner / "orders.sim.py"
    scenario.write_text("")
    assert ProjectConfig(path=tmp_path / "pyproject.toml", seed="outer", max_runs=9) == config_for(scenario)
    (inner / "eutaxy.toml").write_text('seed = "inner"\n')
    assert ProjectConfig(path=inner / "eutaxy.toml", seed="inner") == config_for(scenario)


def test_a_pyproject_without_tool_eutaxy_is_passed_by(tmp_path):
    """A nearer pyproject.toml that does not configure Eutaxy does not hide the one above it."""
    (tmp_path / "eutaxy.toml").write_text('prover = ["smt"]\n')
    inner = tmp_path / "service"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[project]\nname = "service"\n[tool.ruff]\nline-length = 100\n')
    assert ("smt",) == config_for(inner / "a.sim.py").prover


def test_no_config_anywhere_is_empty(tmp_path):
    """Nothing found: every default stays the command's own."""
    assert ProjectConfig() == config_for(tmp_path / "a.sim.py")


def test_unknown_key_exits_2_naming_file_line_and_nearest_key(testplatform, write_scenario, run_cli):
    """A misspelt key is bad input: the file, its line, what was expected, the nearest valid key."""
    path = write_scenario("idempotent")
    config = path.with_name("pyproject.toml")
    config.write_text('[project]\nname = "orders"\n\n[tool.eutaxy]\nprover = ["smt"]\nsed = "s1"\n')
    result = run_cli("check", str(path))
    assert 2 == result.code
    assert f"{config}:6: unknown key 'sed' in [tool.eutaxy]; did you mean 'seed'?" in result.stderr
    assert "(the keys: budget-ms, max-runs, prover, prover-steps, seed)" in result.stderr
    assert "" == result.stdout
    assert [] == testplatform.RUNS


def test_unknown_subtable_is_named_at_its_header(tmp_path):
    """[tool.eutaxy.bounds] is a key the config does not take, reported at the header's line."""
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.eutaxy]\nseed = "s"\n\n[tool.eutaxy.bounds]\nmaxRuns = 3\n')
    with pytest.raises(UserError) as caught:
        load_config(config)
    assert str(caught.value).startswith(f"{config}:4: unknown key 'bounds' in [tool.eutaxy];")


@pytest.mark.parametrize(("line", "message"), [
    ('max-runs = "ten"', "max-runs must be a whole number of runs above 0, such as 400, got 'ten'"),
    ("budget-ms = 0", "budget-ms must be a whole number of milliseconds above 0, such as 5000, got 0"),
    ("max-runs = true", "max-runs must be a whole number of runs above 0, such as 400, got True"),
    ('seed = ""', "seed must be a non-empty string, such as \"s1\", got ''"),
    ('prover = "smt"', "prover must be a list of engines from smt, lean, all, such as [\"smt\"], got 'smt'"),
    ('prover = ["smtt"]', "prover lists 'smtt', an unknown engine; did you mean 'smt'?"),
])
def test_a_value_of_the_wrong_kind_is_refused_at_its_line(tmp_path, line, message):
    """Each key's value is checked where it is read, with what was expected and what came."""
    config = tmp_path / "eutaxy.toml"
    config.write_text(f"# defaults for our checks\n{line}\n")
    with pytest.raises(UserError) as caught:
        load_config(config)
    assert str(caught.value).startswith(f"{config}:2: {message}")


def test_toml_that_does_not_parse_names_the_file_and_line(tmp_path):
    """tomllib's own position is kept in the message."""
    config = tmp_path / "eutaxy.toml"
    config.write_text('seed = "s1"\nmax-runs = \n')
    with pytest.raises(UserError) as caught:
        config_for(tmp_path / "a.sim.py")
    assert str(caught.value).startswith(f"{config}: expected TOML: ")
    assert "line 2" in str(caught.value)


def test_two_configs_in_one_folder_are_refused(tmp_path):
    """eutaxy.toml and [tool.eutaxy] side by side would leave the winner to chance: exit 2 instead."""
    (tmp_path / "eutaxy.toml").write_text('seed = "a"\n')
    (tmp_path / "pyproject.toml").write_text('[tool.eutaxy]\nseed = "b"\n')
    with pytest.raises(UserError, match="both eutaxy.toml and pyproject.toml"):
        config_for(tmp_path / "a.sim.py")


def test_the_engines_come_from_the_config_unless_the_command_line_names_some(tmp_path):
    """prover = ["lean"] gives the Lean engine; --prover smt replaces the config's list."""
    config = ProjectConfig(path=tmp_path / "eutaxy.toml", prover=("lean",))
    none_named = argparse.Namespace(prover=None, no_cache=False)
    assert ["lean"] == [engine.name for engine in provers_from_args(with_configured_provers(none_named, config))]
    assert [] == provers_from_args(with_configured_provers(none_named, ProjectConfig()))
    smt_named = argparse.Namespace(prover=["smt"], no_cache=False)
    assert ["smt"] == [type(engine).__name__.removesuffix("Prover").lower()
                       for engine in provers_from_args(with_configured_provers(smt_named, config))]


def test_prover_steps_sets_the_smt_engines_step_limit_and_the_flag_wins(tmp_path):
    """`prover-steps` (kebab-case, as budget-ms and max-runs) is the smt engine's rlimit unless --prover-steps says."""
    (tmp_path / "pyproject.toml").write_text('[tool.eutaxy]\nprover = ["smt"]\nprover-steps = 16000000\n')
    config = config_for(tmp_path)
    assert 16_000_000 == config.prover_steps
    [smt] = provers_from_args(with_configured_provers(argparse.Namespace(prover=None, prover_steps=None), config))
    assert 16_000_000 == smt.rlimit
    [smt] = provers_from_args(with_configured_provers(argparse.Namespace(prover=None, prover_steps=500), config))
    assert 500 == smt.rlimit


def test_the_camel_case_spelling_of_prover_steps_is_named_as_the_key_it_means(tmp_path):
    """Every key is kebab-case: `proverSteps` is bad input naming `prover-steps`, never a limit silently left out."""
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.eutaxy]\nproverSteps = 40000000\n')
    with pytest.raises(UserError) as caught:
        load_config(config)
    assert str(caught.value).startswith(f"{config}:2: unknown key 'proverSteps' in [tool.eutaxy]; "
                                        "did you mean 'prover-steps'")
