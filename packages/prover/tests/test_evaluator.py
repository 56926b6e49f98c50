"""The evaluator: a Node process evaluating a spec file's properties on assignments Python sends."""

import math

import pytest

from eutaxy.prover.evaluator import Evaluator, LoadError, Outcome
from eutaxy.prover.node import NodeError
from eutaxy.spec.values import UNDEFINED, BigInt


def test_lists_the_properties(evaluator):
    """Loading a spec file lists its property exports and their kinds, nothing else."""
    assert {"describes": "forall", "sortsOwnCopy": "forall", "throws": "forall", "whenThrows": "forall",
            "notBoolean": "forall", "whenNotBoolean": "forall", "printsALot": "forall", "spins": "forall",
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


def test_a_runaway_evaluation_ends_the_batch_and_the_evaluator_goes_on(evaluator):
    """A call that never returns is a timeout outcome after the limit; the results before it stand,
    nothing after it is evaluated, and the next request finds a fresh evaluator."""
    outcomes = evaluator.evaluate("spins", [(1,), (2,), (3,), (5,)], limit_ms=1000)
    assert [Outcome(kind="true"), Outcome(kind="true"), Outcome(kind="timeout", phase="ensures", message="1000")] == outcomes
    assert {"kind": "timeout", "phase": "ensures", "ms": 1000} == outcomes[-1].to_data()
    assert [Outcome(kind="true")] == evaluator.evaluate("spins", [(5,)], limit_ms=1000)


def test_code_that_exits_ends_only_its_evaluation(evaluator):
    """process.exit in the code under test is a died outcome naming the exit code; the evaluator goes on."""
    outcomes = evaluator.evaluate("spins", [(1,), (4,), (5,)])
    assert ["true", "died"] == [o.kind for o in outcomes]
    assert "exit code 7" in outcomes[-1].message and "ensures" == outcomes[-1].phase
    assert [Outcome(kind="true")] == evaluator.evaluate("throws", [(1,)])


def test_a_module_that_never_finishes_importing(toolchain, tmp_path, monkeypatch):
    """A spec whose import loops is a load error after the load limit, not a hang."""
    import eutaxy.prover.evaluator as evaluator_module

    monkeypatch.setattr(evaluator_module, "LOAD_LIMIT_MS", 300)
    (tmp_path / "x.props.ts").write_text("while (true) {}\nexport const p = 1;\n")
    with pytest.raises(LoadError, match="did not finish importing within 300 ms"):
        with Evaluator(tmp_path / "x.props.ts", toolchain):
            pass


def test_a_node_process_that_stops_answering_is_killed(toolchain):
    """Python's own deadline: a process that never answers is a NodeError after the timeout, and is stopped."""
    from eutaxy.prover.node import JsonLinesProcess

    deaf = JsonLinesProcess(args=[str(toolchain.node), "-e", "setInterval(() => {}, 1000)"], env={}).start()
    with pytest.raises(NodeError, match="did not answer within"):
        deaf.request({"op": "ping"}, timeout_s=0.5)
    assert not deaf.running


def test_every_request_names_its_deadline(toolchain):
    """No request waits without a deadline: ``timeout_s`` is required and must be positive."""
    from eutaxy.prover.node import JsonLinesProcess

    with JsonLinesProcess(args=[str(toolchain.node), "-e", "setInterval(() => {}, 1000)"], env={}) as deaf:
        with pytest.raises(TypeError, match="timeout_s"):
            deaf.request({"op": "ping"})  # type: ignore[call-arg]  # the missing deadline is the point
        with pytest.raises(AssertionError):
            deaf.request({"op": "ping"}, timeout_s=0)


def test_an_evaluator_whose_process_died_starts_again(toolchain):
    """When the Node process is gone, the next request starts a fresh one with the spec loaded."""
    from prover_support import FIXTURES

    with Evaluator(FIXTURES / "evaluator" / "domain.props.ts", toolchain) as evaluator:
        evaluator._process._proc.kill()
        evaluator._process._proc.wait()
        assert [Outcome(kind="true")] == evaluator.evaluate("throws", [(1,)])
        assert 1 == evaluator.restarts


def test_words_are_the_core_streams_words(evaluator):
    """The evaluator's words for a xoshiro128** state are core's next_u32() words, and its state after them is core's."""
    from eutaxy.core.prng import stream

    for seed in ("", "seed-1", "eutaxy-report"):
        core = stream(seed, "tested/p")
        words, after = evaluator.words(core.words, 3000)
        assert [core.next_u32() for _ in range(3000)] == list(words)
        assert core.words == after
    with pytest.raises(NodeError, match="four uint32 state words"):
        evaluator.words((0, 0, 0, 0), 10)


def test_draws_from_the_evaluators_words_are_pythons_draws(evaluator):
    """A Draws fed blocks of words by the evaluator draws exactly what one making its own words draws, across blocks."""
    from eutaxy.prover.randomness import AHEAD_WORDS, Draws

    ahead = Draws.for_property("seed-3", "p", ahead=evaluator.words)
    alone = Draws.for_property("seed-3", "p")
    count = AHEAD_WORDS + 5000
    assert [alone.u32() for _ in range(count)] == [ahead.u32() for _ in range(count)]
    assert [alone.random() for _ in range(100)] == [ahead.random() for _ in range(100)]
    # An ahead that gives nothing leaves the words to Python, the same words again.
    fallback = Draws.for_property("seed-3", "p", ahead=lambda state, count: None)
    again = Draws.for_property("seed-3", "p")
    assert [again.u32() for _ in range(2000)] == [fallback.u32() for _ in range(2000)]
