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
    import eutaxy.prover

    module = types.ModuleType("eutaxy.prover.report")
    calls = []

    def run_report(directory, seed):
        calls.append((directory, seed))
        kind = "refuted" if Path(directory).name == "bad" else "tested"
        return {"kind": "spec_report", "modules": [{"module": "core.ts", "verdicts": [{"kind": kind, "property": "p"}]}]}

    module.run_report = run_report
    module.render_text = lambda result: "core.ts\n  p: " + result["modules"][0]["verdicts"][0]["kind"].upper()
    monkeypatch.setitem(sys.modules, "eutaxy.prover.report", module)
    monkeypatch.setattr(eutaxy.prover, "report", module, raising=False)
    return calls


def test_report_runs_the_ladder_and_prints_its_text(fake_ladder, run_cli, tmp_path):
    """report DIR calls run_report(DIR, seed) and prints render_text; exit 0 when nothing refuted."""
    result = run_cli("report", str(tmp_path), "--seed", "s")
    assert 0 == result.code, result.stderr
    assert "p: TESTED" in result.stdout
    assert [(tmp_path, "s")] == fake_ladder


def test_report_seed_defaults_to_a_constant(fake_ladder, run_cli, tmp_path):
    """Without --seed the ladder gets the same seed on every machine."""
    assert 0 == run_cli("report", str(tmp_path)).code
    assert [(tmp_path, "eutaxy-report")] == fake_ladder


def test_report_json_and_refuted_exit_1(fake_ladder, run_cli, tmp_path):
    """A refuted spec fails the command; --json prints the ladder's object, versioned."""
    bad = tmp_path / "bad"
    bad.mkdir()
    result = run_cli("report", str(bad), "--json")
    assert 1 == result.code
    data = json.loads(result.stdout)
    assert 1 == data["schemaVersion"] and "spec_report" == data["kind"]


def test_report_without_the_ladder_exits_2(run_cli, tmp_path, monkeypatch):
    """When eutaxy.prover.report is missing the command says so and exits 2."""
    import eutaxy.prover

    monkeypatch.setitem(sys.modules, "eutaxy.prover.report", None)
    monkeypatch.delattr(eutaxy.prover, "report", raising=False)
    result = run_cli("report", str(tmp_path))
    assert 2 == result.code
    assert "spec ladder is not available" in result.stderr
    assert 2 == run_cli("report", str(tmp_path / "missing")).code
