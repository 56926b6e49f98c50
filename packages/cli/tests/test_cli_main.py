"""The ``eutaxy`` command's surface: help, version, JSON everywhere, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from eutaxy.cli.progress import progress_text


def test_version_prints_the_version(run_cli):
    """--version prints `eutaxy 0.1.0`; with --json a version object."""
    assert "eutaxy 0.1.0\n" == run_cli("--version").stdout
    assert {"kind": "version", "schemaVersion": 1, "version": "0.1.0"} == json.loads(run_cli("--json", "--version").stdout)


def test_help_runs_without_platform_engine_or_prover(tmp_path):
    """`eutaxy --help` imports no platform, engine or prover package."""
    code = (
        "import sys\n"
        "from eutaxy.cli.main import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "loaded = [m for m in sys.modules if m.startswith(('eutaxy.cloudflare', 'eutaxy.aws', 'eutaxy.engine', 'eutaxy.prover'))]\n"
        "assert not loaded, loaded\n"
    )
    # The child sees this process's sys.path (the packages may all be importable); the
    # assertion is that --help imports none of them.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(entry for entry in sys.path if entry))
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert 0 == result.returncode, result.stderr
    assert "check" in result.stdout and "toolchain" in result.stdout and "report" in result.stdout


def test_no_command_prints_help_and_exits_2(run_cli):
    """Bare `eutaxy` is a usage error."""
    result = run_cli()
    assert 2 == result.code
    assert "usage: eutaxy" in result.stderr
    data = json.loads(run_cli("--json").stdout)
    assert "error" == data["kind"]


def test_unknown_command_exits_2(run_cli):
    """argparse errors exit 2 and, under --json, still print one error object."""
    assert 2 == run_cli("frobnicate").code
    result = run_cli("frobnicate", "--json")
    assert 2 == result.code
    assert 1 == json.loads(result.stdout)["schemaVersion"]


def test_internal_errors_exit_3_never_1(testplatform, write_scenario, run_cli, monkeypatch):
    """A bug in Eutaxy must not read as VIOLATED."""

    def broken(scenario):
        raise RuntimeError("platform exploded")

    monkeypatch.setattr(testplatform, "create_platform", broken)
    path = write_scenario("buggy")
    result = run_cli("check", str(path), "--json")
    assert 3 == result.code
    assert "RuntimeError: platform exploded" in result.stderr
    assert "internal_error" == json.loads(result.stdout)["kind"]
    assert not list(path.parent.glob("*_regression_test.py"))


def test_progress_text_shows_runs_faults_and_budget():
    """The progress line: runs, faults injected, elapsed against the budget."""
    assert "eutaxy: runs 17  faults 9  1.2s / 2.0s budget" == progress_text(
        {"runs": 17, "faults": 9, "elapsedMs": 1234, "budgetMs": 2000}
    )
    assert "eutaxy: runs 0  faults 0" == progress_text({})
