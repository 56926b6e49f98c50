"""Fixtures for the Lean engine's tests: a module read into SpecIR, and the stand-in ``lean``."""

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from eutaxy.spec import SpecModule

HERE = Path(__file__).resolve().parent


@pytest.fixture
def module_dir(tmp_path):
    """A module and spec file on disk (their bytes are what the proof files' hashes name)."""
    folder = tmp_path / "specs"
    folder.mkdir()
    (folder / "domain.ts").write_text("// the module under test (its SpecIR is in fixtures/domain.json)\n")
    (folder / "domain.props.ts").write_text("// its spec file\n")
    return folder


@pytest.fixture
def module(module_dir) -> SpecModule:
    """fixtures/domain.json (read by the reader from fixtures' TypeScript) placed at ``module_dir``."""
    data = json.loads((HERE / "fixtures" / "domain.json").read_text())
    data["spec"] = str(module_dir / "domain.props.ts")
    data["module"] = str(module_dir / "domain.ts")
    return SpecModule.from_data(data)


@pytest.fixture
def standin(tmp_path, monkeypatch):
    """Write the stand-in ``lean`` (tests/lean_standin.py) into a folder; returns a function setting its plan."""
    folder = tmp_path / "standin-bin"
    folder.mkdir()
    lean = folder / "lean"
    lean.write_text(f"#!{sys.executable}\n" + (HERE / "lean_standin.py").read_text())
    lean.chmod(lean.stat().st_mode | stat.S_IXUSR)

    def plan(**answers):
        (folder / "plan.json").write_text(json.dumps(answers))
        return lean

    plan(default="proved")
    return plan


@pytest.fixture
def clean_env(tmp_path, monkeypatch):
    """No Lean anywhere the engine looks: an empty cache, no elan, a PATH without lean."""
    monkeypatch.setenv("EUTAXY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ELAN_HOME", str(tmp_path / "no-elan"))
    monkeypatch.setenv("PATH", os.pathsep.join(["/usr/bin", "/bin"]))
    return tmp_path
