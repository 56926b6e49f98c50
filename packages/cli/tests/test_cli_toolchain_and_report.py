"""``eutaxy toolchain install`` and ``eutaxy report``, against stand-ins for their packages.

The real installer downloads, and the spec ladder belongs to eutaxy.prover; these tests
replace each with a module of the same name and shape, to check what the CLI prints and
how it exits, not what those packages do.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import NamedTuple

import pytest


class InstallResult(NamedTuple):
    installed: list
    location: Path
    already: bool


class ToolchainError(Exception):
    pass


@pytest.fixture
def fake_toolchain(monkeypatch):
    calls = []
    module = types.ModuleType("eutaxy.cloudflare.toolchain")
    module.ToolchainError = ToolchainError
    state = {"already": False, "fail": False}

    def install_toolchain(cache=None, *, log=print):
        calls.append(cache)
        if state["fail"]:
            raise ToolchainError("npm is not on PATH")
        log("unpacking")
        if state["already"]:
            return InstallResult([], Path("/cache/node-toolchain/abc"), True)
        return InstallResult(["node@24.1.0", "miniflare@4.0.0"], Path("/cache/node-toolchain/abc"), False)

    module.install_toolchain = install_toolchain
    import eutaxy.cloudflare

    monkeypatch.setattr(eutaxy.cloudflare, "toolchain", module, raising=False)
    monkeypatch.setitem(sys.modules, "eutaxy.cloudflare.toolchain", module)
    return state, calls


def test_toolchain_install_reports_what_and_where(fake_toolchain, run_cli):
    """A fresh install lists the packages and the location; log lines go to stderr."""
    result = run_cli("toolchain", "install")
    assert 0 == result.code
    assert "Installed 2 packages at /cache/node-toolchain/abc" in result.stdout
    assert "node@24.1.0" in result.stdout
    assert "unpacking" in result.stderr


def test_toolchain_install_json_and_already_installed(fake_toolchain, run_cli, tmp_path):
    """An installed toolchain is reported as such; --json gives one object."""
    state, calls = fake_toolchain
    state["already"] = True
    result = run_cli("toolchain", "install", "--json", "--cache-dir", str(tmp_path))
    assert 0 == result.code
    assert {
        "schemaVersion": 1, "kind": "toolchain_install", "installed": [],
        "location": "/cache/node-toolchain/abc", "already": True,
    } == json.loads(result.stdout)
    assert [tmp_path] == calls
    assert "already installed" in run_cli("toolchain", "install").stdout


def test_toolchain_install_failure_exits_2(fake_toolchain, run_cli):
    """An installer error is the user's to fix: exit 2 with its message."""
    fake_toolchain[0]["fail"] = True
    result = run_cli("toolchain", "install")
    assert 2 == result.code
    assert "npm is not on PATH" in result.stderr


@pytest.fixture
def fake_ladder(monkeypatch):
    """The real report module with run_report replaced: the command's wiring, without Node."""
    import eutaxy.cli.report_command as report_command
    import eutaxy.prover
    from eutaxy.prover import report as real

    module = types.ModuleType("eutaxy.prover.report")
    calls = []
    found = object()
    monkeypatch.setattr(report_command, "node_toolchain", lambda: found)

    def run_report(directory, seed, *, toolchain, min_inside=None, show_inputs=0, provers=()):
        assert toolchain is found, "the CLI hands the ladder the one finder's toolchain"
        calls.append((directory, seed, min_inside) + ((show_inputs,) if show_inputs else ()))
        name = Path(directory).name
        kind = "refuted" if name == "bad" else "tested"
        modules = [] if name == "empty" else [
            {"spec": "core.props.ts", "module": "core.ts", "diagnostics": [], "skipped": [],
             "properties": [{"kind": kind, "property": "p", "function": "f", "propertyKind": "forall",
                             "counts": {"tested": 5}, "tested": {"target": 100}, "args": [], "rung": "tested",
                             **({"belowMinInside": True} if min_inside else {})}]}]
        return {"schemaVersion": 1, "kind": "spec_report", "directory": str(directory), "seed": seed,
                "modules": modules, "summary": {}}

    module.run_report = run_report
    module.render_text = real.render_text
    module.report_exit_code = real.report_exit_code
    module.input_problems = real.input_problems
    monkeypatch.setitem(sys.modules, "eutaxy.prover.report", module)
    monkeypatch.setattr(eutaxy.prover, "report", module, raising=False)
    return calls


def test_report_runs_the_ladder_and_prints_its_text(fake_ladder, run_cli, tmp_path):
    """report DIR calls run_report(DIR, seed) and prints render_text; exit 0 when nothing refuted."""
    result = run_cli("report", str(tmp_path), "--seed", "s")
    assert 0 == result.code, result.stderr
    assert "TESTED (5 of 100) p" in result.stdout
    assert [(tmp_path, "s", None)] == fake_ladder


def test_report_seed_defaults_to_a_constant(fake_ladder, run_cli, tmp_path):
    """Without --seed the ladder gets the same seed on every machine."""
    assert 0 == run_cli("report", str(tmp_path)).code
    assert [(tmp_path, "eutaxy-report", None)] == fake_ladder


def test_report_json_and_refuted_exit_1(fake_ladder, run_cli, tmp_path):
    """A refuted spec fails the command; --json prints the ladder's object, versioned."""
    bad = tmp_path / "bad"
    bad.mkdir()
    result = run_cli("report", str(bad), "--json")
    assert 1 == result.code
    data = json.loads(result.stdout)
    assert 1 == data["schemaVersion"] and "spec_report" == data["kind"]


def test_report_nothing_checked_exits_2(fake_ladder, run_cli, tmp_path):
    """No spec file is exit 2, in text and under --json (the problem on stderr beside the object)."""
    empty = tmp_path / "empty"
    empty.mkdir()
    text = run_cli("report", str(empty))
    assert 2 == text.code and "no spec file" in text.stdout
    as_json = run_cli("report", str(empty), "--json")
    assert 2 == as_json.code and "no spec file" in as_json.stderr
    assert "spec_report" == json.loads(as_json.stdout)["kind"]


def test_report_min_inside(fake_ladder, run_cli, tmp_path):
    """--min-inside N reaches the ladder and a property short of it fails the command; N must be positive."""
    assert 1 == run_cli("report", str(tmp_path), "--min-inside", "50").code
    assert (tmp_path, "eutaxy-report", 50) == fake_ladder[-1]
    assert 2 == run_cli("report", str(tmp_path), "--min-inside", "0").code


def test_report_show_inputs_reaches_the_ladder(fake_ladder, run_cli, tmp_path):
    """--show-inputs N asks the ladder for each property's first N inputs."""
    assert 0 == run_cli("report", str(tmp_path), "--show-inputs", "3").code
    assert (tmp_path, "eutaxy-report", None, 3) == fake_ladder[-1]


def test_report_without_the_ladder_exits_2(run_cli, tmp_path, monkeypatch):
    """When eutaxy.prover.report is missing the command says so and exits 2."""
    import eutaxy.prover

    monkeypatch.setitem(sys.modules, "eutaxy.prover.report", None)
    monkeypatch.delattr(eutaxy.prover, "report", raising=False)
    result = run_cli("report", str(tmp_path))
    assert 2 == result.code
    assert "spec ladder is not available" in result.stderr
    assert 2 == run_cli("report", str(tmp_path / "missing")).code
