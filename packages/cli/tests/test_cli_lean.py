"""``eutaxy report --prover lean`` and ``--goals`` on real files (the real reader on Node), Lean a stand-in.

No Lean can be fetched on these machines. The stand-in ``lean`` is
packages/prover_lean/tests/lean_standin.py, an executable the test writes onto
the PATH that answers as Lean's command line does for the cases under test;
what it says is never Lean's verdict. What is real: the reader, the emitted
file, the lookup on the PATH, the process boundary and the goal files.
"""

import json
import os
import shutil
import stat
import sys
from pathlib import Path

# Bazel puts the stand-in on the path (//packages/prover_lean:test_support); a checkout finds it beside its tests.
sys.path.append(str(Path(__file__).resolve().parents[2] / "prover_lean" / "tests"))
import lean_standin

FIXTURES = Path(lean_standin.__file__).resolve().parent / "fixtures"


def _standin_on_path(tmp_path, monkeypatch, plan: dict) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    lean = folder / "lean"
    lean.write_text(f"#!{sys.executable}\n" + Path(lean_standin.__file__).read_text())
    lean.chmod(lean.stat().st_mode | stat.S_IXUSR)
    (folder / "plan.json").write_text(json.dumps(plan))
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return lean


def _case(tmp_path) -> Path:
    case = tmp_path / "case"
    case.mkdir()
    for name in ("domain.ts", "domain.props.ts"):
        shutil.copy(FIXTURES / name, case / name)
    return case


def test_report_goals_writes_the_open_goals_beside_the_spec_file(run_cli, tmp_path, monkeypatch):
    """--goals runs the lean engine; the goal the stand-in left open is written as domain.goals.lean."""
    monkeypatch.setenv("EUTAXY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ELAN_HOME", str(tmp_path / "no-elan"))
    _standin_on_path(tmp_path, monkeypatch, {"theorems": {"t_percentInRange": "open"}})
    case = _case(tmp_path)
    result = run_cli("report", str(case), "--goals", "--json", "--seed", "goals-1")
    report = json.loads(result.stdout)
    props = {p["property"]: p for p in report["modules"][0]["properties"]}
    lean = {name: next(e for e in p["engines"] if e["engine"]["name"] == "lean") for name, p in props.items()}
    assert "proven" == lean["withinCaptured"]["kind"]
    assert ("unknown", ["gave_up"]) == (lean["percentInRange"]["kind"], lean["percentInRange"]["reasons"])
    [written] = report["goalFiles"]
    assert ("written", ["percentInRange"]) == (written["action"], written["goals"])
    goals = (case / "domain.goals.lean").read_text()
    assert goals.splitlines()[-1] == "-- proof: percentInRange"
    # A real reader read the spec: the statement in the goal file is Eutaxy's emission of it.
    assert "--   ∀ (v_p : Int)," in goals


def test_report_goals_without_lean_writes_nothing_and_says_why(run_cli, tmp_path, monkeypatch):
    """With no Lean installed, --goals writes no file and names the install command."""
    monkeypatch.setenv("EUTAXY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ELAN_HOME", str(tmp_path / "no-elan"))
    monkeypatch.setenv("PATH", os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                                               if not (Path(p) / "lean").exists()))
    case = _case(tmp_path)
    result = run_cli("report", str(case), "--goals", "--seed", "goals-1")
    assert "Goal files: none written" in result.stdout and "eutaxy prover install lean" in result.stdout
    assert not (case / "domain.goals.lean").exists()


def test_the_mcp_goals_and_prove_tools_run_the_lean_engine(tmp_path, monkeypatch):
    """goals writes the goal file as --goals does; prove answers for the one spec file with its proof file."""
    from eutaxy.cli.mcp_tools import call_tool

    monkeypatch.setenv("EUTAXY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ELAN_HOME", str(tmp_path / "no-elan"))
    _standin_on_path(tmp_path, monkeypatch, {"theorems": {"t_percentInRange": "open"}})
    case = _case(tmp_path)
    goals = call_tool("goals", {"directory": str(case), "seed": "goals-1"})
    assert not goals.is_error, goals.text
    assert [["percentInRange"]] == [f["goals"] for f in goals.data["goalFiles"]]
    assert (case / "domain.goals.lean").is_file() and "Goal files:" in goals.text
    (case / "domain.props.lean").write_text("-- proof: withinCaptured\nsorry\n")
    proved = call_tool("prove", {"spec": str(case / "domain.props.ts"), "seed": "goals-1"})
    assert not proved.is_error, proved.text
    [module] = proved.data["modules"]
    lean = {p["property"]: next(e for e in p["engines"] if e["engine"]["name"] == "lean")
            for p in module["properties"]}
    assert "unknown" == lean["withinCaptured"]["kind"] and "'sorry'" in lean["withinCaptured"]["detail"]
    assert call_tool("prove", {"spec": str(case / "domain.ts")}).is_error
