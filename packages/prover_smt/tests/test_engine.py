"""The SMT engine on small functions: proofs, replayed refutations, unsupported constructs, budgets, caching."""

import json
import signal
from pathlib import Path

import attrs
import pytest

from eutaxy.prover.engine import engine_answers
from eutaxy.prover.evaluator import Evaluator, Outcome
from eutaxy.prover.reader import read_spec
from eutaxy.prover_smt import INSTALL_COMMAND, RLIMIT_DEFAULT, SmtProver, cache as smt_cache, solve as solve_module
from eutaxy.prover_smt import toolchain as smt_toolchain


def _replay(evaluator):
    return lambda name, args: evaluator.evaluate_encoded(name, [list(args)])[0]


def _answers(module, evaluator, **options):
    return engine_answers(SmtProver(cache_results=False, **options), module, module.properties, _replay(evaluator))


@pytest.fixture(scope="module")
def answers(basics, basics_evaluator):
    return _answers(basics, basics_evaluator)


def test_a_model_is_replayed_before_it_refutes(answers):
    """halve(x) * 2 === x fails on NaN (and past the largest double): REFUTED, with the real function's outcome."""
    v = answers["halveUndoes"]
    assert ("refuted", "proven") == (v.kind, v.rung)
    assert "false" == v.counterexample["outcome"]["kind"]
    assert {"name": "smt", "version": "5.4.1"} == v.engine


def test_doubles_strings_nullables_and_arrays_are_proved(answers):
    """Math.min with -0, string concatenation over a nullable, a guarded array read: PROVEN with the models listed."""
    for name in ("smallerIsBelow", "labelled", "firstOfNonNegative"):
        assert "proven" == answers[name].kind, (name, answers[name].detail)
    assert "number is the IEEE double (binary64, round to nearest even), NaN, the infinities and -0 included" in \
        answers["labelled"].assumptions
    assert any("arrays are dense" in a for a in answers["firstOfNonNegative"].assumptions)


def test_a_read_past_the_end_is_never_proved(answers):
    """xs[0] on an empty array is undefined: the engine cannot prove a claim that rests on it being a number."""
    v = answers["unguardedIsANumber"]
    assert v.kind in ("refuted", "unknown")
    assert "proven" != v.kind


def test_total_is_not_the_solvers(answers):
    """A solver does not decide termination: total is UNKNOWN (unsupported)."""
    assert ("unknown", ("unsupported",)) == (answers["halveTerminates"].kind, answers["halveTerminates"].reasons)


def test_a_model_the_real_function_does_not_confirm_is_unknown(basics):
    """A replay where the claim holds: the engine's model disagreed, UNKNOWN (unsupported) with the model's input."""
    holds = lambda name, args: Outcome(kind="true")  # noqa: E731 - a stand-in for a real function that disagrees
    prop = next(p for p in basics.properties if p.name == "halveUndoes")
    v = engine_answers(SmtProver(cache_results=False), basics, [prop], holds)["halveUndoes"]
    assert ("unknown", ("unsupported",)) == (v.kind, v.reasons)
    assert "disagreed with the real function" in v.detail and v.counterexample["args"]


def test_an_exhausted_resource_limit_is_gave_up(basics, basics_evaluator):
    """Budgets are Z3's rlimit, never wall-clock: too small a limit is UNKNOWN (gave_up)."""
    prop = next(p for p in basics.properties if p.name == "smallerIsBelow")
    v = engine_answers(SmtProver(cache_results=False, rlimit=10), basics, [prop], _replay(basics_evaluator))[prop.name]
    assert ("unknown", ("gave_up",)) == (v.kind, v.reasons)
    assert "rlimit 10" in v.detail


def test_answers_are_cached_by_files_and_engine(basics, basics_evaluator, tmp_path, monkeypatch):
    """A second proof of the same files comes from the cache (no replay); another budget proves again."""
    monkeypatch.setenv("EUTAXY_CACHE_DIR", str(tmp_path))
    prop = next(p for p in basics.properties if p.name == "halveUndoes")
    first = engine_answers(SmtProver(), basics, [prop], _replay(basics_evaluator))[prop.name]
    assert list((tmp_path / "proofs" / "smt").glob("*.json"))

    def no_replay(name, args):
        raise AssertionError("a cached answer is not replayed again")

    assert first == engine_answers(SmtProver(), basics, [prop], no_replay)[prop.name]
    with pytest.raises(AssertionError, match="not replayed again"):
        engine_answers(SmtProver(rlimit=3_999_999), basics, [prop], no_replay)


def test_a_missing_z3_is_unavailable_with_the_install_command(basics, monkeypatch):
    """No pinned Z3 here: every property UNKNOWN (unavailable), naming `eutaxy prover install smt`."""
    monkeypatch.setattr(smt_toolchain, "_LOADED", f"Z3 5.4.1 is not installed; run `{INSTALL_COMMAND}`")
    answers = engine_answers(SmtProver(), basics, basics.properties, replay=None)
    assert {("unknown", ("unavailable",))} == {(a.kind, a.reasons) for a in answers.values()}
    assert all(INSTALL_COMMAND in a.detail for a in answers.values())


@pytest.fixture
def copied(basics, tmp_path, monkeypatch):
    """The basics files copied under tmp_path, with an imported helper, and the read module pointed at the copies."""
    monkeypatch.setenv("EUTAXY_CACHE_DIR", str(tmp_path / "cache"))
    src = Path(basics.spec).parent
    (tmp_path / "case").mkdir()
    for name in ("domain.ts", "domain.props.ts"):
        (tmp_path / "case" / name).write_text((src / name).read_text())
    (tmp_path / "case" / "helper.ts").write_text("export const ONE = 1;\n")
    case = tmp_path / "case"
    return attrs.evolve(basics, module=str(case / "domain.ts"), spec=str(case / "domain.props.ts"),
                        sources=tuple(sorted(str(case / n) for n in ("domain.ts", "helper.ts"))))


def _no_replay(name, args):
    raise AssertionError("proved again")


def _prove_then(module, evaluator):
    """Prove halveUndoes into the cache; give a function saying whether ``module`` now proves it again."""
    prop = next(p for p in module.properties if p.name == "halveUndoes")
    first = engine_answers(SmtProver(), module, [prop], _replay(evaluator))[prop.name]
    assert first == engine_answers(SmtProver(), module, [prop], _no_replay)[prop.name], "a hit before the change"

    def proves_again(changed) -> bool:
        try:
            engine_answers(SmtProver(), changed, [prop], _no_replay)
        except AssertionError:
            return True
        return False

    return proves_again


@pytest.mark.parametrize("edited", ["domain.ts", "domain.props.ts", "helper.ts"])
def test_an_edited_module_spec_or_imported_file_proves_again(copied, basics_evaluator, edited):
    """A byte changed in the module, the spec file or a file they import is a cache miss: the engine proves again."""
    proves_again = _prove_then(copied, basics_evaluator)
    path = Path(copied.spec).parent / edited
    path.write_text(path.read_text() + "// edited\n")
    assert proves_again(copied)


def test_a_changed_engine_digest_proves_again(copied, basics_evaluator, monkeypatch):
    """Another Z3 or another encoding (the engine's digest) is a cache miss: the engine proves again."""
    proves_again = _prove_then(copied, basics_evaluator)
    monkeypatch.setattr(smt_cache, "engine_digest", lambda: "another engine")
    assert proves_again(copied)


def test_a_claim_z3_does_not_stop_on_is_killed_at_its_deadline_and_never_cached(toolchain, tmp_path, monkeypatch):
    """A %-heavy claim runs far past any step limit: its process is killed at the deadline, UNKNOWN (gave_up)
    naming the deadline and the limit, and nothing is cached (the next run solves again)."""
    monkeypatch.setenv("EUTAXY_CACHE_DIR", str(tmp_path))
    heavy = read_spec(Path(__file__).resolve().parent / "fixtures" / "heavy" / "domain.props.ts", toolchain)
    prover = SmtProver(rlimit=2**32 - 1, deadline_s=2)
    [v] = engine_answers(prover, heavy, heavy.properties, _no_replay).values()
    assert ("unknown", ("gave_up",)) == (v.kind, v.reasons)
    assert "wall-clock deadline of 2 s" in v.detail and "rlimit 4294967295" in v.detail
    assert [] == sorted(p.name for p in tmp_path.rglob("*") if p.is_file())


def test_a_step_limit_running_out_inside_a_sub_solver_is_the_limit_and_kept(toolchain, tmp_path, monkeypatch):
    """Z3 says "canceled" when the rlimit runs out in its floating-point bit-blasting; its step count says which.

    So the answer names the limit, as any step limit running out does, and is kept:
    the next run answers from the cache.
    """
    monkeypatch.setenv("EUTAXY_CACHE_DIR", str(tmp_path))
    spec = Path(__file__).resolve().parent / "fixtures" / "product" / "domain.props.ts"
    module = read_spec(spec, toolchain)
    with Evaluator(spec, toolchain) as evaluator:
        [first, again] = [engine_answers(SmtProver(rlimit=1_000_000), module, module.properties,
                                         _replay(evaluator))["totalAtLeastUnit"] for _ in range(2)]
    assert ("unknown", ("gave_up",)) == (first.kind, first.reasons)
    assert "Z3's step limit ran out (rlimit 1000000)" == first.detail
    assert 1 == len(list((tmp_path / "proofs" / "smt").glob("*.json"))) and first == again


def test_a_cached_entry_names_its_engine_version_limit_and_verdict(basics, basics_evaluator, tmp_path, monkeypatch):
    """The entry on disk says what it is an answer of; an entry of another limit is a miss whatever its key."""
    monkeypatch.setenv("EUTAXY_CACHE_DIR", str(tmp_path))
    prop = next(p for p in basics.properties if p.name == "halveUndoes")
    verdict = engine_answers(SmtProver(), basics, [prop], _replay(basics_evaluator))[prop.name]
    [path] = list((tmp_path / "proofs" / "smt").glob("*.json"))
    entry = json.loads(path.read_text())
    assert ("smt", "5.4.1", RLIMIT_DEFAULT, verdict.to_data()) == (entry["engine"], entry["version"], entry["rlimit"],
                                                                   entry["verdict"])
    assert verdict == smt_cache.load(path.stem, rlimit=RLIMIT_DEFAULT)
    assert smt_cache.load(path.stem, rlimit=RLIMIT_DEFAULT + 1) is None


@pytest.mark.parametrize("data, status, cacheable", [
    (b'{"kind": "unsat"}', 0, True),
    (b'{"kind": "unknown", "reason": "max. resource limit exceeded"}', 0, True),
    (b'{"kind": "unknown", "reason": "interrupted from keyboard"}', 0, False),
    (b'{"kind": "unknown", "reason": "canceled"}', 0, False),
    (b'{"kind": "unknown", "reason": "canceled", "steps": 99}', 0, False),
    (b'{"kind": "unknown", "reason": "canceled", "steps": 100}', 0, True),
    (b'{"kind": "crashed", "reason": "MemoryError: "}', 1 << 8, False),
    (b"", signal.SIGKILL, False),
    (b'{"kind": "un', signal.SIGSEGV, False),
])
def test_only_the_engines_answers_may_be_cached(data, status, cacheable):
    """A decision or Z3's own step limit is an answer; an interruption, a crash or a killed solver is not."""
    answer = solve_module._answer(data, status, 100)
    assert cacheable == answer.cacheable
    if not cacheable:
        assert "unknown" == answer.kind and answer.why
