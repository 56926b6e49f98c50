"""Supplied proofs (``domain.props.lean``), run against the stand-in ``lean`` the tests build.

The statement stays Eutaxy's (emitted before any supplied text); a refused
file is UNKNOWN with the reason for every property it names and is never
PROVEN, whatever the stand-in would have answered; a file whose SHA-256 header
no longer matches is not used (gave_up, naming the file that moved).
"""

import hashlib

from eutaxy.prover.engine import ProveInput
from eutaxy.prover_lean.engine import LeanProver
from eutaxy.prover_lean.proofs import proof_path

PROOF = """\
theorem helper (a b : Int) (h : a <= b) : a <= b := h

-- proof: withinCaptured
intro v_captured v_refunded v_amount h
simp only [f_decideRefund]
split <;> omega
"""


def _prove(module, lean):
    prover = LeanProver(lean=lean, cache_results=False)
    return prover.prove(ProveInput(module=module, properties=module.properties, replay=None)).verdicts


def _hashes(module) -> str:
    digest = {k: hashlib.sha256(open(p, "rb").read()).hexdigest() for k, p in (("module", module.module),
                                                                                ("spec", module.spec))}
    return f"-- eutaxy module sha256: {digest['module']}\n-- eutaxy spec sha256: {digest['spec']}\n"


def test_a_supplied_proof_follows_the_statements_and_is_proven_as_supplied(clean_env, module, standin):
    """Lemmas and tactics go after every statement; PROVEN says the proof was supplied."""
    proof_path(module.spec).write_text(PROOF)
    lean = standin(default="proved")
    verdicts = _prove(module, lean)
    given = (lean.parent / "given.lean").read_text()
    assert given.index("def s_withinCaptured") < given.index("theorem helper")
    assert "theorem t_withinCaptured : s_withinCaptured := by\n  unfold s_withinCaptured\n  intro v_captured" in given
    assert "proven" == verdicts["withinCaptured"].kind
    assert "the proof was supplied in domain.props.lean" in verdicts["withinCaptured"].assumptions
    # The properties the file does not prove keep the engine's script.
    assert "all_goals omega" in given.split("theorem t_percentInRange")[1].split("#check")[0]


def test_a_refused_word_refuses_the_file_and_nothing_it_names_is_proven(clean_env, module, standin):
    """sorry in a proof part: UNKNOWN with the word and its line, though the stand-in would say proved."""
    proof_path(module.spec).write_text(PROOF.replace("split <;> omega", "sorry"))
    verdicts = _prove(module, standin(default="proved"))
    refused = verdicts["withinCaptured"]
    assert ("unknown", ("unsupported",)) == (refused.kind, refused.reasons)
    assert "domain.props.lean line 6 uses 'sorry'" in refused.detail
    assert "proven" == verdicts["percentInRange"].kind  # not named by the file: the script ran


def test_each_refused_construct_in_a_proof_file_is_never_proven(clean_env, module, standin):
    """admit, axiom, unsafe, #print, @[...], set_option, native_decide: each refuses the file."""
    lean = standin(default="proved")
    for text in ("admit", "axiom cheat : False", "unsafe def x := 1", "#print axioms helper",
                 "@[simp] theorem y : True := trivial", "set_option maxHeartbeats 0 in", "native_decide"):
        proof_path(module.spec).write_text(PROOF + text + "\n")
        verdict = _prove(module, lean)["withinCaptured"]
        assert "unknown" == verdict.kind and "may not use" in verdict.detail, text


def test_an_axiom_outside_the_standard_three_is_refused(clean_env, module, standin):
    """The kernel accepted it, but #print axioms lists another axiom: UNKNOWN, never PROVEN."""
    proof_path(module.spec).write_text(PROOF)
    verdicts = _prove(module, standin(theorems={"t_withinCaptured": "extra_axiom"}))
    assert ("unknown", ("gave_up",)) == (verdicts["withinCaptured"].kind, verdicts["withinCaptured"].reasons)
    assert "eutaxy_planted" in verdicts["withinCaptured"].detail
    verdicts = _prove(module, standin(theorems={"t_withinCaptured": "sorry"}))
    assert "sorryAx" in verdicts["withinCaptured"].detail


def test_an_error_in_a_supplied_proof_names_the_proof_files_line(clean_env, module, standin):
    """Lean's error inside the supplied tactics is reported at the proof file's own line."""
    proof_path(module.spec).write_text(PROOF)
    verdict = _prove(module, standin(theorems={"t_withinCaptured": "open"}))["withinCaptured"]
    assert ("unknown", ("gave_up",)) == (verdict.kind, verdict.reasons)
    assert "the proof supplied in domain.props.lean (its line 5)" in verdict.detail


def test_a_part_for_a_property_the_spec_lacks_refuses_the_file(clean_env, module, standin):
    """A proof part naming no exported property is refused as a whole."""
    proof_path(module.spec).write_text(PROOF + "-- proof: noSuchProperty\nrfl\n")
    verdicts = _prove(module, standin(default="proved"))
    assert all("noSuchProperty" in verdicts[p].detail for p in ("withinCaptured", "percentInRange"))


def test_stale_hashes_keep_the_proofs_out_naming_the_file_that_moved(clean_env, module, standin):
    """With the two header lines, a changed module makes every named property gave_up; fresh, it is used."""
    path = proof_path(module.spec)
    path.write_text(_hashes(module) + PROOF)
    lean = standin(default="proved")
    assert "proven" == _prove(module, lean)["withinCaptured"].kind
    with open(module.module, "a") as changed:
        changed.write("// edited\n")
    verdict = _prove(module, lean)["withinCaptured"]
    assert ("unknown", ("gave_up",)) == (verdict.kind, verdict.reasons)
    assert "domain.props.lean is stale: domain.ts changed" in verdict.detail
    assert "proven" == _prove(module, lean)["percentInRange"].kind
