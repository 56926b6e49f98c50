"""The vocabulary table, constructs.json, against what the emitter does with each entry's sample.

Each entry carries a sample: binder types and a claim expression as SpecIR.
An entry the Lean engine takes must emit exactly its ``lean`` text; an entry
it refuses must be refused naming that entry. So the table and the emitter
cannot disagree about a construct without a test failing.
"""

import pytest

from eutaxy.prover_lean import constructs
from eutaxy.prover_lean.emit import Emitter, Unsupported, _Scope
from eutaxy.spec import (BooleanType, Binder, FunctionDef, NumberType, SpecModule, expr_from_data,
                         type_from_data)

ENTRIES = list(constructs.constructs().values())

#: The module the samples call into: ``positive(n: number): boolean``.
MODULE = SpecModule(spec="/m/domain.props.ts", module="/m/domain.ts", properties=(), functions=(
    FunctionDef(name="positive", params=(Binder(name="n", type=NumberType()),), returns=BooleanType(),
                body=expr_from_data({"kind": "binary", "op": ">", "left": {"kind": "binder", "index": 0, "name": "n"},
                                     "right": {"kind": "literal", "value": 0}}), line=1),))


def _sample(entry: dict) -> str:
    sample = entry["sample"]
    emitter = Emitter(MODULE)
    binders = [Binder(name="ab"[i], type=type_from_data({"name": "", **t}), optional=t.get("optional", False))
               for i, t in enumerate(sample["binders"])]
    scope = _Scope(binders=emitter.binders(binders, 1))
    text, _ = emitter.expr(expr_from_data(sample["expr"]), scope)
    return text


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_each_entry_has_the_outcome_it_states(entry):
    """A taken construct emits its stated Lean text; a refused one is refused under its own name."""
    if entry["lean"]:
        assert entry["sample"]["lean"] == _sample(entry)
    else:
        with pytest.raises(Unsupported) as refused:
            _sample(entry)
        want = "WhileStatement" if entry["name"] == "outside the subset" else entry["name"]
        assert want == refused.value.construct


def test_every_entry_says_both_engines():
    """Each entry says whether each engine takes it, and a refusal says why."""
    for entry in ENTRIES:
        assert isinstance(entry["lean"], bool) and isinstance(entry["smt"], bool), entry["name"]
        assert entry["lean"] or entry["why"], entry["name"]


def test_a_construct_missing_from_the_table_is_an_eutaxy_bug():
    """The emitter may only name constructs the table holds."""
    with pytest.raises(AssertionError, match="constructs.json lacks"):
        constructs.entry("a construct nobody wrote down")
