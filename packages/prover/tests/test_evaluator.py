"""The evaluator: a Node process evaluating a spec file's properties on assignments Python sends."""

import math

import pytest

from eutaxy.prover.evaluator import Evaluator, LoadError, Outcome
from eutaxy.prover.node import NodeError
from eutaxy.prover.values import UNDEFINED, BigInt


def test_lists_the_properties(evaluator):
    """Loading a spec file lists its property exports and their kinds, nothing else."""
    assert {"describes": "forall", "sortsOwnCopy": "forall", "throws": "forall", "whenThrows": "forall",
            "notBoolean": "forall", "whenNotBoolean": "forall", "printsALot": "forall",
            "terminates": "total"} == evaluator.properties


def test_values_cross_as_javascript_values(evaluator):
    """bigint, NaN, the infinities, -0, undefined and a record with a "$" key arrive as themselves."""
    arrive = [(BigInt(12345678901234567890),), (math.nan,), (-0.0,), (math.inf,), (-math.inf,), (0.5,),
              ({"$": "tag"},), (UNDEFINED,)]
    assert [Outcome(kind="true")] * len(arrive) == evaluator.evaluate("describes", arrive)
    assert [Outcome(kind="false")] * 2 == evaluator.evaluate("describes", [(0,), (BigInt(1),)])


def test_each_evaluation_gets_its_own_copy(evaluator):
    """The claim sorts its input in place; when, ensures and the next assignment each see the array as sent."""
    xs = (3, 1, 2)
    assert [Outcome(kind="true"), Outcome(kind="true")] == evaluator.evaluate("sortsOwnCopy", [(xs,), (xs,)])
    assert (3, 1, 2) == xs


def test_true_false_skipped_and_thrown(evaluator):
    """An exception from ensures comes back named; a false when is skipped; one from when is marked as when's."""
    assert [Outcome(kind="threw", phase="ensures", name="RangeError", message="unlucky"), Outcome(kind="skipped"),
            Outcome(kind="true")] == evaluator.evaluate("throws", [(13,), (7,), (1,)])
    assert [Outcome(kind="threw", phase="when", name="RangeError", message="unlucky")] == evaluator.evaluate("whenThrows", [(13,)])
    assert Outcome(kind="threw", phase="ensures").fails and not Outcome(kind="threw", phase="when").inside


def test_non_boolean_marks_the_property_malformed(evaluator):
    """A claim or precondition returning a number is malformed, with what it returned."""
    assert [Outcome(kind="malformed", phase="ensures", message="number")] == evaluator.evaluate("notBoolean", [(1,)])
    assert [Outcome(kind="malformed", phase="when", message="number")] == evaluator.evaluate("whenNotBoolean", [(1,)])


def test_batches_larger_than_one_line(evaluator):
    """More assignments than one request carries are split and answered in order."""
    outcomes = evaluator.evaluate("throws", [(n,) for n in range(600)])
    assert 600 == len(outcomes)
    assert "threw" == outcomes[13].kind and "skipped" == outcomes[7].kind and "true" == outcomes[599].kind


def test_real_regexp(evaluator):
    """The real RegExp decides matches, JavaScript semantics included (no lookbehind guesswork)."""
    assert [True, False, True] == evaluator.regex_matches("^(?<=)a\\d$", "", ["a1", "ab", "a9"])
    assert [True, True, False] == evaluator.regex_matches("^.$", "u", ["\ud83d", "😀", "ab"])  # a lone surrogate crosses intact


def test_total_has_no_claim(evaluator):
    """A total property has nothing to evaluate; asking is an error, not a verdict."""
    with pytest.raises(NodeError, match="total property"):
        evaluator.evaluate("terminates", [(1,)])


def test_spec_that_does_not_import(toolchain, tmp_path):
    """A spec file whose module is missing fails to load, naming the module."""
    (tmp_path / "x.props.ts").write_text('import { f } from "./gone.ts";\nexport const p = f;\n')
    with pytest.raises(LoadError, match="gone"):
        with Evaluator(tmp_path / "x.props.ts", toolchain):
            pass


def test_code_that_prints_does_not_break_the_protocol(evaluator):
    """What the code under test prints goes to stderr (kept in a file), never into the answers, and never stalls."""
    assert [Outcome(kind="true")] * 3 == evaluator.evaluate("printsALot", [(1,), (2,), (3,)])
