"""The CHECKED rung over recorded Core decisions ({args, result} payloads)."""

from eutaxy.prover.checked import recorded_calls, run_checked

from prover_support import prop


def _calls(*args_lists):
    return [{"args": list(a), "result": None} for a in args_lists]


def test_distinct_calls_held_is_checked_with_the_count(tested_module, tested_evaluator):
    """Each distinct argument list is one assignment; a repeated call is counted once."""
    result = run_checked(prop(tested_module, "addCommutes"), tested_evaluator, _calls((1, 2), (1, 2), (3, 4)))
    v = result.verdict
    assert ("checked", "checked", {"checked": 2}) == (v.kind, v.rung, v.counts)
    assert (2, 3) == (result.evaluated, result.draws)


def test_failing_when_is_discarded_and_none_inside_gives_up(tested_module, tested_evaluator):
    """Calls outside the precondition are discarded; none inside is UNKNOWN (gave_up); no calls likewise."""
    p = prop(tested_module, "addCommutes")
    assert {"checked": 1} == run_checked(p, tested_evaluator, _calls((5000, 1), (1, 1))).verdict.counts
    v = run_checked(p, tested_evaluator, _calls((5000, 1))).verdict
    assert ("unknown", ("gave_up",)) == (v.kind, v.reasons)
    assert ("unknown", ("gave_up",)) == (lambda v: (v.kind, v.reasons))(run_checked(p, tested_evaluator, []).verdict)


def test_refuted_with_the_call_it_came_from(tested_module, tested_evaluator):
    """A false claim on a recorded call is REFUTED carrying that call, result included."""
    calls = [{"args": [100], "result": 1}, {"args": [4000], "result": -1}]
    v = run_checked(prop(tested_module, "feePositive"), tested_evaluator, calls).verdict
    assert ("refuted", "checked") == (v.kind, v.rung)
    assert {"args": [4000], "result": -1} == v.counterexample["call"]
    assert {"checked": 1} == v.counts


def test_exception_refutes_malformed_is_unsupported(tested_module, tested_evaluator):
    """An exception from ensures refutes; a non-boolean claim is UNKNOWN (unsupported), malformed."""
    assert "refuted" == run_checked(prop(tested_module, "divideThrows"), tested_evaluator, _calls((1, 0))).verdict.kind
    result = run_checked(prop(tested_module, "notBoolean"), tested_evaluator, _calls((1,)))
    assert ("unknown", ("unsupported",), True) == (result.verdict.kind, result.verdict.reasons, result.malformed)


def test_total_is_unsupported_here(tested_module, tested_evaluator):
    """total is UNKNOWN (unsupported) at CHECKED."""
    v = run_checked(prop(tested_module, "terminates"), tested_evaluator, _calls((1, 2))).verdict
    assert ("unknown", ("unsupported",)) == (v.kind, v.reasons)


def test_encoded_arguments(tested_module, tested_evaluator):
    """Recorded arguments use the value encoding, so -0 and NaN from the simulator arrive as themselves."""
    v = run_checked(prop(tested_module, "pairsDiffer"), tested_evaluator,
                    _calls(({"$": "number", "v": "NaN"}, {"$": "number", "v": "NaN"}), (0, {"$": "number", "v": "-0"}))).verdict
    assert "refuted" == v.kind and [0, {"$": "number", "v": "-0"}] == v.counterexample["args"]


def test_recorded_calls_from_an_effect_log():
    """Only decision effects on Core:<function> are taken, in log order."""
    effects = [
        {"target": "Core:fee", "kind": "decision", "payload": {"args": [1], "result": 1}},
        {"target": "D1:DB", "kind": "result", "payload": {"args": {}, "result": {}}},
        {"target": "Core:other", "kind": "decision", "payload": {"args": [2], "result": 2}},
        {"target": "Core:fee", "kind": "decision", "payload": {"args": [3], "result": 3}},
    ]
    assert [{"args": [1], "result": 1}, {"args": [3], "result": 3}] == recorded_calls(effects, "fee")


def test_exact_readings_replace_the_canonical_ones(tested_module, tested_evaluator):
    """A payload's argsExact/resultExact are what CHECKED evaluates: f(-0) is not f(0), and the counterexample says -0."""
    minus_zero = {"$": "number", "v": "-0"}
    calls = [{"args": [0, 0], "result": True, "argsExact": [0, minus_zero], "resultExact": False}]
    v = run_checked(prop(tested_module, "pairsDiffer"), tested_evaluator, calls).verdict
    assert "refuted" == v.kind
    assert {"args": [0, minus_zero], "result": False} == v.counterexample["call"]


def test_recorded_calls_take_the_exact_reading_and_leave_out_what_is_not_exact():
    effects = [
        {"target": "Core:fee", "kind": "decision", "payload": {"args": "1,2", "result": "3",
                                                                "argsExact": [{"$": "bigint", "v": "1"}, 2],
                                                                "resultExact": {"$": "bigint", "v": "3"}}},
        {"target": "Core:fee", "kind": "decision", "payload": {"args": ["1970-01-01T00:00:00.000Z"], "result": 1,
                                                                "argsInexact": "args[0] is a Date"}},
        {"target": "Core:fee", "kind": "decision", "payload": {"args": [1], "result": None, "resultExact": {"$": "undefined"}}},
    ]
    assert [{"args": [{"$": "bigint", "v": "1"}, 2], "result": {"$": "bigint", "v": "3"}},
            {"args": [1], "result": {"$": "undefined"}}] == recorded_calls(effects, "fee")
