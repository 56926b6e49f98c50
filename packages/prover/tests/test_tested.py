"""The TESTED rung on the fixture spec file (fixtures/tested): order, counting, stopping, shrinking, verdicts."""

from eutaxy.prover.domains import edges
from eutaxy.prover.tested import MAX_INSIDE_DEFAULT, DRAWS_PER_INSIDE, _Run, run_tested
from eutaxy.spec.values import decode, encode, key
from eutaxy.spec import Binder, BooleanType, ForallProperty, Literal, NumberType

from prover_support import prop


def _run(tested_module, tested_evaluator, name, seed="seed-1", **kw):
    return run_tested(prop(tested_module, name), tested_evaluator, seed, **kw)


def test_true_claim_is_tested_on_exactly_the_set_number(tested_module, tested_evaluator):
    """A true claim is TESTED on exactly 100 distinct inputs, with the seed it rests on."""
    result = _run(tested_module, tested_evaluator, "addCommutes")
    v = result.verdict
    assert ("tested", "tested", {"tested": MAX_INSIDE_DEFAULT}, "seed-1") == (v.kind, v.rung, v.counts, v.seed)
    assert "" == v.detail
    assert result.evaluated <= result.draws


def test_same_seed_same_verdict_other_seed_other_draws(tested_module, tested_evaluator):
    """One seed gives byte-identical data twice; another seed draws other inputs to the same verdict."""
    one = _run(tested_module, tested_evaluator, "addCommutes").to_data()
    two = _run(tested_module, tested_evaluator, "addCommutes").to_data()
    other = _run(tested_module, tested_evaluator, "addCommutes", seed="seed-2").to_data()
    assert one == two
    assert one["kind"] == other["kind"]
    assert one["draws"] != other["draws"] or one["evaluated"] != other["evaluated"]


def test_max_inside_is_configurable_and_half_goes_to_random_draws(tested_module, tested_evaluator):
    """The stop count is a parameter; every edge is tried, and at least half the count still comes from random draws.

    With max_inside=1 no random draw is owed, so the count is the edges inside
    the claim; with 7 (fewer than those edges) exactly 7 // 2 random ones follow.
    """
    edges_inside = _run(tested_module, tested_evaluator, "addCommutes", max_inside=1).verdict.counts["tested"]
    assert edges_inside > 7
    assert {"tested": edges_inside + 3} == _run(tested_module, tested_evaluator, "addCommutes", max_inside=7).verdict.counts
    assert {"tested": 100} == _run(tested_module, tested_evaluator, "addCommutes", max_inside=100).verdict.counts


def test_deep_counterexample_found_by_draws_and_shrunk(tested_module, tested_evaluator):
    """A claim false only in [3000, 7000) is refuted by a random draw (no edge lies there) and shrunk to 3000."""
    for seed in ("a", "b", "c"):
        v = _run(tested_module, tested_evaluator, "feePositive", seed=seed).verdict
        assert ("refuted", "tested") == (v.kind, v.rung)
        assert [3000] == v.counterexample["args"]
        assert {"cents": 3000} == v.counterexample["assignment"]
        drawn = decode(v.counterexample["drawn"][0])
        assert 3000 <= drawn < 7000
        assert key(encode(drawn)) not in {key(encode(e)) for e in edges(NumberType())}


def test_exception_from_ensures_is_a_counterexample(tested_module, tested_evaluator):
    """ensures throwing on b = 0 is REFUTED, with the exception as the outcome."""
    v = _run(tested_module, tested_evaluator, "divideThrows").verdict
    assert "refuted" == v.kind
    assert [1, 0] == v.counterexample["args"]
    assert {"kind": "threw", "phase": "ensures", "name": "RangeError", "message": "division by zero"} == v.counterexample["outcome"]


def test_precondition_never_met_gives_up(tested_module, tested_evaluator):
    """No input inside the claim after twenty times the set number of draws is UNKNOWN (gave_up)."""
    result = _run(tested_module, tested_evaluator, "neverInside", max_inside=10)
    assert ("unknown", ("gave_up",)) == (result.verdict.kind, result.verdict.reasons)
    assert result.edges + DRAWS_PER_INSIDE * 10 == result.draws
    assert not result.malformed


def test_malformed_and_never_evaluable(tested_module, tested_evaluator):
    """A non-boolean claim, or a when that throws on every input, is UNKNOWN (unsupported) and marked malformed."""
    for name, detail in (("notBoolean", "malformed property: ensures returned string"),
                         ("whenAlwaysThrows", "could not be evaluated on any input")):
        result = _run(tested_module, tested_evaluator, name, max_inside=5)
        assert ("unknown", ("unsupported",), True) == (result.verdict.kind, result.verdict.reasons, result.malformed)
        assert detail in result.verdict.detail


def test_total_is_unknown_here(tested_module, tested_evaluator):
    """total is UNKNOWN (unsupported) at a sampling rung."""
    v = _run(tested_module, tested_evaluator, "terminates").verdict
    assert ("unknown", ("unsupported",)) == (v.kind, v.reasons)


def test_small_domain_is_exhausted(tested_module, tested_evaluator):
    """Two booleans are four inputs, however often drawn: TESTED on 4, saying the domain is that small."""
    result = _run(tested_module, tested_evaluator, "flagsOr")
    assert ("tested", {"tested": 4}, 4) == (result.verdict.kind, result.verdict.counts, result.evaluated)
    assert "the whole domain was evaluated (4 inputs)" == result.verdict.detail


def test_unions_and_arrays_are_drawn(tested_module, tested_evaluator):
    """Literal unions, tagged unions and readonly arrays are drawn and the claim holds."""
    assert "tested" == _run(tested_module, tested_evaluator, "levels").verdict.kind


def test_equal_edges_meet_in_step(tested_module, tested_evaluator):
    """The in-step walk pairs equal edges (x === y), so a claim false only there is refuted under every seed."""
    for seed in ("a", "b", "c"):
        v = _run(tested_module, tested_evaluator, "pairsDiffer", seed=seed).verdict
        assert ("refuted", [0, 0]) == (v.kind, v.counterexample["args"])


def test_related_binders_meet_an_equation(tested_module, tested_evaluator):
    """part + rest === total is met by drawing total as the sum of two earlier-or-later integer binders."""
    v = _run(tested_module, tested_evaluator, "sumRelated", max_inside=20).verdict
    assert "tested" == v.kind and v.counts["tested"] >= 1


def test_regex_guarded_strings_are_walked(tested_module, tested_evaluator):
    """A whole-string pattern in when is walked; the claim false on six-letter first words is refuted and shrunk."""
    v = _run(tested_module, tested_evaluator, "shortWords").verdict
    assert "refuted" == v.kind
    assert ["aaaaaa a"] == v.counterexample["args"]


def test_edge_walk_in_step_and_rotated(tested_evaluator):
    """Edges are walked once in step and once rotated (binder j starting j places in), distinct."""
    p = ForallProperty(name="x", function="f", binders=(Binder(name="a", type=BooleanType()), Binder(name="b", type=BooleanType())),
                       ensures=Literal(value=True))
    run = _Run(p, tested_evaluator, "s", 10)
    assert [(False, False), (True, True), (False, True), (True, False)] == run._edge_assignments()


def test_a_property_stream_depends_only_on_seed_and_name(tested_module, tested_evaluator):
    """Running other properties first changes nothing: each property draws from its own derived stream."""
    before = _run(tested_module, tested_evaluator, "levels").to_data()
    _run(tested_module, tested_evaluator, "addCommutes")
    assert before == _run(tested_module, tested_evaluator, "levels").to_data()


def test_unsupported_binder(tested_evaluator):
    """A binder the reader marked unsupported makes the property UNKNOWN (unsupported), naming it."""
    from eutaxy.spec import UnsupportedType

    p = ForallProperty(name="x", function="f", binders=(Binder(name="cb", type=UnsupportedType(reason="functions are not drawn", name="() => void")),),
                       ensures=Literal(value=True))
    v = run_tested(p, tested_evaluator, "s").verdict
    assert ("unknown", ("unsupported",), "binder cb is not drawn: () => void: functions are not drawn") == (v.kind, v.reasons, v.detail)


def test_max_enumerate_bounds_the_enumerated_domain(tested_module, tested_evaluator):
    """`sample: { maxEnumerate }` compiles and bounds enumeration: 0..300 is seen whole by default, sampled under 100.

    302 inside: the 301 integers and -0 (an edge, distinct from 0 as Object.is says).
    """
    assert () == tested_module.diagnostics
    whole = _run(tested_module, tested_evaluator, "feeSmallRange")
    sampled = _run(tested_module, tested_evaluator, "feeSmallRangeSampled")
    assert (True, {"tested": 302}) == (whole.whole_domain, whole.verdict.counts)
    assert whole.verdict.detail.startswith("the whole domain was evaluated")
    assert (False, {"tested": MAX_INSIDE_DEFAULT}) == (sampled.whole_domain, sampled.verdict.counts)
    assert "draws limited by sample (maxEnumerate 100); the claim is not" in sampled.verdict.assumptions
