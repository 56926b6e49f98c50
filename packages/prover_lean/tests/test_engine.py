"""The Lean engine behind the Prover interface, run against the stand-in ``lean`` the tests build.

The stand-in (tests/lean_standin.py) answers as Lean's command line does for
the cases under test; what it says is never Lean's verdict. These tests show
the engine's side of the boundary: the file it hands over, the deadline, and
how each kind of answer maps back to a property and a line.
"""

import os

import attrs

from eutaxy.prover.engine import ProveInput, engine_answers
from eutaxy.prover_lean.engine import LeanProver
from eutaxy.prover_lean.toolchain import INSTALL_COMMAND, find_lean
from eutaxy.spec import GlobalWrite


def _replay(name, args):  # pragma: no cover - the Lean engine never replays: it does not refute
    raise AssertionError("the Lean engine has no counterexample to replay")


def _prove(module, **kwargs):
    prover = LeanProver(cache_results=False, **kwargs)
    return prover, prover.prove(ProveInput(module=module, properties=module.properties, replay=_replay)).verdicts


def test_no_toolchain_is_unavailable_naming_the_install_command(clean_env, module):
    """With no Lean in the cache, elan or the PATH, every answer is UNKNOWN (unavailable) with the command."""
    status = LeanProver().available()
    assert "unavailable" in status and INSTALL_COMMAND in status["unavailable"]
    answers = engine_answers(LeanProver(), module, module.properties, _replay)
    assert {"unknown"} == {a.kind for a in answers.values()}
    assert {("unavailable",)} == {a.reasons for a in answers.values()}
    assert all(INSTALL_COMMAND in a.detail for a in answers.values())


def test_a_lean_on_the_path_serves_only_at_the_pinned_version(clean_env, standin, monkeypatch):
    """A bare lean of exactly 4.30.0 is found; another version is named and refused."""
    lean = standin(version="4.30.0")
    monkeypatch.setenv("PATH", f"{lean.parent}{os.pathsep}{os.environ['PATH']}")
    found = find_lean()
    assert (lean, "4.30.0", "PATH") == (found.lean, found.version, found.source)
    standin(version="4.9.0")
    why = find_lean()
    assert isinstance(why, str) and "reports 4.9.0" in why and INSTALL_COMMAND in why


def test_each_answer_maps_to_its_property(clean_env, module, standin):
    """Proved, open goal, sorry, an extra axiom, a wrong #check, no message: each mapped by line, one run."""
    lean = standin(theorems={"t_withinCaptured": "proved", "t_percentInRange": "open", "t_flipTwice": "sorry"})
    prover, verdicts = _prove(module, lean=lean)
    assert "proven" == verdicts["withinCaptured"].kind
    assert {"name": "lean", "version": "4.30.0"} == verdicts["withinCaptured"].engine
    assert any("unbounded integers" in a for a in verdicts["withinCaptured"].assumptions)
    opened = verdicts["percentInRange"]
    assert ("unknown", ("gave_up",)) == (opened.kind, opened.reasons)
    assert "the tactic script (line" in opened.detail and "unsolved goals" in opened.detail
    assert ("unknown", ("gave_up",)) == (verdicts["flipTwice"].kind, verdicts["flipTwice"].reasons)
    assert "sorryAx" in verdicts["flipTwice"].detail
    # Outside the subset: named with its construct and line, Lean not asked.
    assert ("unknown", ("unsupported",)) == (verdicts["endsAtZero"].kind, verdicts["endsAtZero"].reasons)
    assert ("WhileStatement", 23, "module") == tuple(verdicts["endsAtZero"].unsupported[k]
                                                     for k in ("construct", "line", "file"))
    # total: the definition was accepted.
    assert "proven" == verdicts["clampTerminates"].kind
    # The open goal is kept for --goals, with the statement and Lean's first line.
    goals = prover.goals[module.spec].goals
    assert ["percentInRange"] == list(goals)
    assert goals["percentInRange"][1] == "unsolved goals"
    given = (lean.parent / "given.lean").read_text()
    assert "theorem t_percentInRange : s_percentInRange := by" in given


def test_a_program_writing_a_built_in_is_never_proved(clean_env, module, standin):
    """With a write to Math.floor in the program, every property is UNKNOWN (unsupported) naming it; Lean is not asked."""
    lean = standin(theorems={"t_withinCaptured": "proved"})
    write = GlobalWrite(file="polyfill.ts", line=5, target="Math.floor", text="Math.floor = (x: number) => x")
    _, verdicts = _prove(attrs.evolve(module, global_writes=(write,)), lean=lean)
    assert {("unknown", ("unsupported",))} == {(v.kind, v.reasons) for v in verdicts.values()}
    assert {"construct": "an assignment to a built-in", "line": 5, "file": "polyfill.ts"}.items() <= \
        verdicts["withinCaptured"].unsupported.items()
    assert "writes Math.floor" in verdicts["withinCaptured"].detail
    assert not (lean.parent / "given.lean").exists(), "Lean was not run"


def test_no_axiom_message_or_another_statement_is_not_a_proof(clean_env, module, standin):
    """A theorem Lean printed nothing about, or whose #check shows another statement, is gave_up."""
    lean = standin(theorems={"t_withinCaptured": "silent", "t_percentInRange": "wrong_check",
                             "t_flipTwice": "extra_axiom"})
    _, verdicts = _prove(module, lean=lean)
    assert "showed nothing" in verdicts["withinCaptured"].detail
    assert "not Eutaxy's" in verdicts["percentInRange"].detail
    assert "eutaxy_planted" in verdicts["flipTwice"].detail
    assert {"unknown"} == {verdicts[p].kind for p in ("withinCaptured", "percentInRange", "flipTwice")}


def test_an_error_outside_every_theorem_is_an_engine_gap(clean_env, module, standin):
    """Eutaxy's own definitions not compiling is UNKNOWN (unsupported) for every property, never a verdict."""
    lean = standin(definitions_error=True)
    prover, verdicts = _prove(module, lean=lean)
    for name in ("withinCaptured", "percentInRange", "flipTwice", "clampTerminates"):
        assert ("unknown", ("unsupported",)) == (verdicts[name].kind, verdicts[name].reasons)
        assert "did not compile" in verdicts[name].detail and "line 2" in verdicts[name].detail
    assert module.spec not in prover.goals, "no answer is never taken for no open goals"


def test_a_run_past_its_deadline_is_killed_and_gave_up(clean_env, module, standin):
    """The stand-in sleeps past the deadline: the run is killed and every emitted property is gave_up."""
    lean = standin(sleep_s=120)
    prover, verdicts = _prove(module, lean=lean, deadline_s=1.0)
    for name in ("withinCaptured", "percentInRange", "flipTwice", "clampTerminates"):
        assert ("unknown", ("gave_up",)) == (verdicts[name].kind, verdicts[name].reasons)
        assert "did not finish within 1 s" in verdicts[name].detail
    pid = int((lean.parent / "pid").read_text())
    try:
        os.kill(pid, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    assert not alive, "the stand-in was killed at the deadline"
    assert module.spec not in prover.goals


def test_the_ladder_asking_property_by_property_starts_lean_once(clean_env, module, standin):
    """One Lean run answers the whole module, however the ladder asks (it asks one property at a time)."""
    lean = standin(default="proved")
    prover = LeanProver(lean=lean, cache_results=False)
    for prop in module.properties:
        [answer] = prover.prove(ProveInput(module=module, properties=(prop,), replay=_replay)).verdicts.values()
        assert prop.name == answer.property
    assert 1 == len((lean.parent / "runs").read_text().splitlines())


def test_answers_are_cached_by_what_they_depend_on(clean_env, module, standin):
    """A second engine on unchanged files answers from the cache; a changed module proves again; a timeout is not kept."""
    lean = standin(theorems={"t_percentInRange": "open"})
    runs = lean.parent / "runs"
    first = LeanProver(lean=lean)
    answers = first.prove(ProveInput(module=module, properties=module.properties, replay=_replay)).verdicts
    again = LeanProver(lean=lean)
    cached = again.prove(ProveInput(module=module, properties=module.properties, replay=_replay)).verdicts
    assert 1 == len(runs.read_text().splitlines())
    assert {n: v.to_data() for n, v in answers.items()} == {n: v.to_data() for n, v in cached.items()}
    assert first.goals[module.spec].goals == again.goals[module.spec].goals
    with open(module.module, "a") as changed:
        changed.write("// edited\n")
    LeanProver(lean=lean).prove(ProveInput(module=module, properties=module.properties, replay=_replay))
    assert 2 == len(runs.read_text().splitlines())
    standin(sleep_s=120)
    with open(module.module, "a") as changed:
        changed.write("// edited again\n")
    for _ in range(2):
        LeanProver(lean=lean, deadline_s=1.0).prove(ProveInput(module=module, properties=module.properties,
                                                               replay=_replay))
    assert 4 == len(runs.read_text().splitlines()), "a run stopped at its deadline is never kept"
