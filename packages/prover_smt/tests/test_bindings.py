"""Bodies bound by declaration: a claim is proved about the function the compiler resolves its calls to.

fixtures/bindings holds two functions named ``fee`` (card.ts and bank.ts, imported as
``cardFee`` and ``bankFee``), a barrel file re-exporting them and bank's default export
under other names, a star re-export, a default export of a named function and an
anonymous default arrow, a module calling bank's fee through a local alias and a namespace
import, an imported file with a private ``cap`` beside quota.ts's own, and a call to a
``let``. fixtures/patched holds modules that write built-ins (``Math.max = ...`` and
the other ways of writing one). Each false claim is false in Node; no engine answer may
be PROVEN for it.
"""

from pathlib import Path

import pytest

from eutaxy.prover.engine import engine_answers
from eutaxy.prover.evaluator import Evaluator
from eutaxy.prover.reader import read_spec
from eutaxy.prover_smt import SmtProver
from eutaxy.spec import Call, children

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CHECKOUT = FIXTURES / "bindings" / "checkout.props.ts"

#: False in Node (bank's fee is 0 from 2000 on): refuted with a model replayed on the real function.
FALSE = ("bankFeeIsPaid", "aliasIsPaid", "byBankIsPaid", "namespaceIsPaid", "barrelIsPaid", "starIsPaid")
#: True of the body the compiler resolves to, false of the other function of the same name.
TRUE = ("bankFeeAtMost50", "cardFeeAtLeast30", "byCardIsPaid", "flatIs25", "bankNeverAboveCard",
        "totalKeepsAmount", "capKeepsHundreds", "quotaAtMost1001", "extraAtMost20")


def _answers(spec: Path, toolchain) -> dict:
    module = read_spec(spec, toolchain)
    with Evaluator(spec, toolchain) as evaluator:
        replay = lambda name, args: evaluator.evaluate_encoded(name, [list(args)])[0]  # noqa: E731 - a one-line replay for engine_answers
        return engine_answers(SmtProver(cache_results=False), module, module.properties, replay)


@pytest.fixture(scope="module")
def checkout(toolchain):
    return read_spec(CHECKOUT, toolchain)


@pytest.fixture(scope="module")
def answers(toolchain):
    return _answers(CHECKOUT, toolchain)


def _calls(tree) -> list[Call]:
    found = [tree] if isinstance(tree, Call) else []
    for child in children(tree):
        found.extend(_calls(child))
    return found


def test_each_body_is_named_by_its_declaration(checkout):
    """Two fees and two caps are four bodies with their own ids (file:line:column), each read from its own file."""
    assert [] == list(checkout.diagnostics)
    ids = {f.id: (f.name, f.file) for f in checkout.functions}
    assert len(ids) == len(checkout.functions)
    assert {"bank.ts:2:17": ("fee", "bank.ts"), "card.ts:2:17": ("fee", "card.ts"),
            "quota.ts:4:17": ("cap", "quota.ts"), "rounding.ts:2:10": ("cap", "rounding.ts"),
            "bank.ts:9:25": ("flat", "bank.ts")}.items() <= ids.items()
    assert None is checkout.function("fee") is checkout.function("cap"), "a shared name alone picks no body"


def test_calls_and_properties_point_at_the_declaration_the_compiler_resolved(checkout):
    """Aliases, re-exports, default exports and namespace imports all reach the declaration itself."""
    refs = {p.name: p.ref for p in checkout.properties}
    for name in ("bankFeeIsPaid", "aliasIsPaid", "barrelIsPaid", "bankNeverAboveCard", "starIsPaid"):
        assert "bank.ts:2:17" == refs[name], name
    assert ("card.ts:2:17", "bank.ts:9:25") == (refs["cardFeeAtLeast30"], refs["flatIs25"])
    extra = next(p for p in checkout.properties if p.name == "extraAtMost20")
    assert "surcharge.ts:2:10" == extra.ref, "export default surcharge: the function it names"
    assert ["surcharge.ts:2:10", "anon.ts:1:16"] == [c.ref for c in _calls(extra.ensures)], "an anonymous default arrow"
    namespace = next(p for p in checkout.properties if p.name == "namespaceIsPaid")
    assert ["bank.ts:2:17", "checkout.ts:16:17"] == [c.ref for c in _calls(namespace.ensures)]
    by_bank, via_namespace, quota = (checkout.body(r) for r in ("checkout.ts:8:17", "checkout.ts:16:17",
                                                                "quota.ts:8:17"))
    assert ["bank.ts:2:17"] == [c.ref for c in _calls(by_bank.body)] == [c.ref for c in _calls(via_namespace.body)]
    assert ["rounding.ts:6:17", "quota.ts:4:17"] == [c.ref for c in _calls(quota.body)]
    tidy = checkout.body("rounding.ts:6:17")
    assert ["rounding.ts:2:10"] == [c.ref for c in _calls(tidy.body)], "rounding.ts's tidy calls its own cap"


def test_false_claims_over_a_renamed_function_are_refuted_never_proved(answers):
    """bankFee(2999) is 0 in Node: every way of naming bank's fee is refuted by a model replayed on it."""
    for name in FALSE:
        v = answers[name]
        assert "refuted" == v.kind, (name, v.kind, v.detail)
        assert v.counterexample["args"][0] >= 2000 and "false" == v.counterexample["outcome"]["kind"], name


def test_true_claims_are_proved_about_the_right_body_across_modules(answers):
    """Each true claim is proved of its own body, including claims across two modules."""
    for name in TRUE:
        assert "proven" == answers[name].kind, (name, answers[name].detail)


def test_a_call_resolving_to_no_declaration_is_unsupported_naming_it(answers):
    """A call to a `let` can be replaced at run time: UNKNOWN (unsupported), naming the call and its line."""
    v = answers["viaLetIsPositive"]
    assert ("unknown", ("unsupported",)) == (v.kind, v.reasons)
    assert {"construct": "UnresolvedCall", "line": 5, "text": "rateOf(cents)", "function": "viaLet"}.items() <= \
        v.unsupported.items()


def test_a_module_writing_a_built_in_is_never_proved(toolchain):
    """Math.max reassigned: larger(1, 2) is 1 in Node; the claim true of the standard one is UNKNOWN naming the write."""
    v = _answers(FIXTURES / "patched" / "domain.props.ts", toolchain)["largerIsAtLeastB"]
    assert ("unknown", ("unsupported",)) == (v.kind, v.reasons)
    assert {"construct": "an assignment to a built-in", "line": 2, "file": "domain.ts",
            "text": "Math.max = (...xs: number[]) => xs[0]"}.items() <= v.unsupported.items()
    assert "writes Math.max" in v.detail


def test_every_way_of_writing_a_built_in_is_found(toolchain):
    """Assignments through a const alias, a cast, an index, `delete`, Object.defineProperty and a parameter's type."""
    module = read_spec(FIXTURES / "patched" / "writes.props.ts", toolchain)
    assert [("Math.min", 6), ("Number.prototype.cents", 7), ("Number.prototype.toFixed", 8), ("globalThis.rate", 9),
            ("Math.trunc", 10), ("Math.floor", 11), ("Math.sign", 12), ("m.abs", 23)] == \
        [(w.target, w.line) for w in module.global_writes]
    assert {"writes.ts"} == {w.file for w in module.global_writes}, "a record's or an array's own fields are not built-ins"
