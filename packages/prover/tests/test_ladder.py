"""Ladder aggregation, as the seeds' ladder paragraph orders it (pure: no Node)."""

from eutaxy.core.verdicts import SpecVerdict
from eutaxy.prover.ladder import aggregate
from eutaxy.prover.rung import RungResult

ENGINE = {"name": "smt", "version": "4.13"}


def _rung(kind, rung, *, count=0, reasons=(), malformed=False, cx=None, detail=""):
    return RungResult(verdict=SpecVerdict(kind=kind, property="p", rung=rung, counts={rung: count}, reasons=reasons,
                                          counterexample=cx, detail=detail, seed="s" if rung == "tested" else None),
                      malformed=malformed)


CHECKED = _rung("checked", "checked", count=3, detail="held on 3 distinct recorded calls")
TESTED = _rung("tested", "tested", count=100)
C_GAVE_UP = _rung("unknown", "checked", reasons=("gave_up",), detail="no call")
T_GAVE_UP = _rung("unknown", "tested", reasons=("gave_up",), detail="no input inside")
C_REFUTED = _rung("refuted", "checked", count=1, cx={"call": {"args": [1]}})
T_REFUTED = _rung("refuted", "tested", count=5, cx={"args": [2]})
MALFORMED = _rung("unknown", "tested", reasons=("unsupported",), malformed=True, detail="malformed property")


def _engine(kind, **kw):
    return SpecVerdict(kind=kind, property="p", rung="proven", engine=ENGINE, **kw)


def test_both_hold_is_tested_saying_how_many_simulator_inputs():
    """CHECKED and TESTED together are TESTED, with both counts and the simulator's count in the detail."""
    v = aggregate("p", CHECKED, TESTED)
    assert ("tested", {"checked": 3, "tested": 100}, "s") == (v.kind, v.counts, v.seed)
    assert "also held on 3 of the simulator's inputs" == v.detail


def test_simulator_counterexample_first():
    """A counterexample at CHECKED wins over one at TESTED and over TESTED holding."""
    assert ("refuted", "checked", {"call": {"args": [1]}}) == (lambda v: (v.kind, v.rung, v.counterexample))(aggregate("p", C_REFUTED, T_REFUTED))
    assert ("refuted", "tested") == (lambda v: (v.kind, v.rung))(aggregate("p", CHECKED, T_REFUTED))


def test_checked_stands_when_sampling_gives_up():
    """CHECKED with TESTED giving up is CHECKED, saying why it is not TESTED."""
    v = aggregate("p", CHECKED, T_GAVE_UP)
    assert "checked" == v.kind and "not TESTED: no input inside" in v.detail


def test_tested_alone_and_neither():
    """TESTED with no recorded call is TESTED; neither deciding is one UNKNOWN naming both reasons."""
    assert "tested" == aggregate("p", C_GAVE_UP, TESTED).kind
    v = aggregate("p", C_GAVE_UP, _rung("unknown", "tested", reasons=("unsupported",), detail="total"))
    assert ("unknown", ("gave_up", "unsupported")) == (v.kind, v.reasons)
    assert "checked: no call; tested: total" == v.detail


def test_malformed_stays_unknown_whatever_the_other_rung_found():
    """A malformed property is UNKNOWN (unsupported) even beside a CHECKED or a refutation, and engines do not lift it."""
    for other in (CHECKED, C_REFUTED):
        v = aggregate("p", other, MALFORMED, [_engine("proven")])
        assert ("unknown", ("unsupported",)) == (v.kind, v.reasons)


def test_engine_proving_lifts_to_proven_keeping_counts():
    """One engine proving lifts to PROVEN, the lower rungs' counts kept; total is proved this way."""
    v = aggregate("p", CHECKED, TESTED, [_engine("proven", assumptions=("number is the IEEE double",))])
    assert ("proven", "proven", ENGINE, {"checked": 3, "tested": 100}) == (v.kind, v.rung, v.engine, v.counts)
    total = aggregate("p", _rung("unknown", "checked", reasons=("unsupported",)), _rung("unknown", "tested", reasons=("unsupported",)),
                      [_engine("proven")])
    assert "proven" == total.kind


def test_engine_refuting_alone_is_refuted_at_proven():
    """An engine refuting where nothing else did is REFUTED at the PROVEN rung with its counterexample."""
    v = aggregate("p", CHECKED, TESTED, [_engine("refuted", counterexample={"args": [9]})])
    assert ("refuted", "proven", {"args": [9]}) == (v.kind, v.rung, v.counterexample)


def test_conflicts():
    """Proving against another engine's refutation, or against the simulator's counterexample, is CONFLICT."""
    other = SpecVerdict(kind="refuted", property="p", rung="proven", engine={"name": "lean", "version": "4"})
    assert "conflict" == aggregate("p", CHECKED, TESTED, [_engine("proven"), other]).kind
    assert "conflict" == aggregate("p", C_REFUTED, TESTED, [_engine("proven")]).kind


def test_engine_that_did_not_decide_leaves_the_verdict_with_why():
    """An engine that gave up or is unavailable leaves the verdict, noting why among the assumptions."""
    v = aggregate("p", CHECKED, TESTED, [_engine("unknown", reasons=("unavailable",), detail="z3 is not installed")])
    assert "tested" == v.kind
    assert "engine smt did not decide: z3 is not installed" in v.assumptions
