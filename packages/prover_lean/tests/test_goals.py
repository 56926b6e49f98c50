"""Goal files: the open goals of a module Lean answered, written as the start of a proof file.

Run against the stand-in ``lean`` the tests build, never taken for Lean's verdict.
"""

from eutaxy.prover.engine import ProveInput
from eutaxy.prover_lean.engine import LeanProver, ModuleGoals
from eutaxy.prover_lean.goals import render, write_goals
from eutaxy.prover_lean.proofs import ProofFile, check, goals_path, proof_path
from eutaxy.prover_lean.words import refused_words


def _answered(module, lean) -> LeanProver:
    prover = LeanProver(lean=lean, cache_results=False)
    prover.prove(ProveInput(module=module, properties=module.properties, replay=None))
    return prover


def test_open_goals_are_written_with_both_hashes_and_an_empty_part_each(clean_env, module, standin):
    """One goal open: the file names both SHA-256s, the statement, Lean's first line and one empty part."""
    prover = _answered(module, standin(theorems={"t_percentInRange": "open"}))
    [done] = write_goals(prover.goals)
    assert ("written", ["percentInRange"]) == (done["action"], done["goals"])
    text = goals_path(module.spec).read_text()
    lines = text.splitlines()
    assert lines[0].startswith("-- eutaxy module sha256: ") and lines[0].endswith(" domain.ts")
    assert lines[1].startswith("-- eutaxy spec sha256: ") and lines[1].endswith(" domain.props.ts")
    assert "-- percentInRange: the tactic script left this goal open; Lean said: unsolved goals" in lines
    assert "--   ∀ (v_p : Int)," in lines
    assert "-- proof: percentInRange" == lines[-1]
    assert [] == refused_words(text)


def test_the_template_copied_as_a_proof_file_is_accepted(clean_env, module, standin):
    """Copied to domain.props.lean unchanged it is a valid proof file (nothing supplied yet), fresh by its hashes."""
    prover = _answered(module, standin(theorems={"t_percentInRange": "open"}))
    write_goals(prover.goals)
    copied = goals_path(module.spec).read_text()
    accepted = check(copied, "domain.props.lean", module)
    assert isinstance(accepted, ProofFile) and {} == dict(accepted.proofs)
    filled = copied + "intro v_p\nsimp only [f_clampPercent]\nsplit <;> omega\n"
    accepted = check(filled, "domain.props.lean", module)
    assert isinstance(accepted, ProofFile) and ["percentInRange"] == list(accepted.proofs)
    proof_path(module.spec).write_text(filled)
    verdicts = _answered(module, standin(default="proved")).prove(
        ProveInput(module=module, properties=module.properties, replay=None)).verdicts
    assert "the proof was supplied in domain.props.lean" in verdicts["percentInRange"].assumptions


def test_no_open_goal_removes_the_file_and_no_answer_leaves_it(clean_env, module, standin):
    """Every goal closed removes an old goal file; a run with no answer (past its deadline) keeps it."""
    path = goals_path(module.spec)
    path.write_text("-- left from an earlier run\n")
    prover = LeanProver(lean=standin(sleep_s=120), deadline_s=1.0, cache_results=False)
    prover.prove(ProveInput(module=module, properties=module.properties, replay=None))
    assert [] == write_goals(prover.goals) and path.exists()
    prover = _answered(module, standin(default="proved"))
    [done] = write_goals(prover.goals)
    assert "removed" == done["action"] and not path.exists()


def test_a_refused_word_in_a_diagnostic_or_a_name_never_reaches_the_template(module):
    """A property named by a refused word is written by its theorem name; a diagnostic holding one is left out."""
    goals = ModuleGoals(spec=module.spec, module=module.module,
                        goals={"sorry": ("∀ (v_a : Int),\n    (decide (v_a = v_a)) = true", "declaration uses 'sorry'")})
    text = render(goals)
    assert "-- proof: t_sorry" in text and "Lean's message is left out" in text
    assert [] == refused_words(text)
