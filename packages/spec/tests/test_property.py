"""Properties and spec modules round-trip through plain data."""

import json

import pytest

from eutaxy.spec import (Binary, Binder, BinderRef, ForallProperty, FunctionDef, Literal, NotAProperty, NumberType,
                         SpecModule, TotalProperty, js_module_dir, property_from_data)

N = Binder(name="n", type=NumberType())
FORALL = ForallProperty(name="positive", function="half", binders=(N,),
                        when=Binary(op=">", left=BinderRef(index=0, name="n"), right=Literal(value=0)),
                        ensures=Binary(op="<", left=Literal(value=0), right=BinderRef(index=0, name="n")),
                        sample={"maxArrayLength": 4}, line=5)
TOTAL = TotalProperty(name="terminates", function="half", binders=(N,), line=9)


@pytest.mark.parametrize("prop", [FORALL, TOTAL], ids=["forall", "total"])
def test_property_round_trip(prop):
    """Both property kinds survive JSON."""
    assert prop == property_from_data(json.loads(json.dumps(prop.to_data())))


def test_module_round_trip():
    """A spec module keeps its properties, skipped exports and compiler diagnostics."""
    module = SpecModule(spec="/p/domain.props.ts", module="/p/domain.ts", properties=(FORALL, TOTAL),
                        skipped=(NotAProperty(name="helper", line=12, reason="not built by forall"),),
                        diagnostics=("domain.props.ts(3,1): TS2322: ...",))
    assert module == SpecModule.from_data(json.loads(json.dumps(module.to_data())))


def test_bodies_are_found_by_declaration_never_by_a_shared_name():
    """Two bodies named ``fee``: a ref picks its own; a name alone picks neither; a unique name still reads."""
    def body(id_: str, name: str, value: int) -> FunctionDef:
        return FunctionDef(name=name, params=(N,), returns=NumberType(), body=Literal(value=value), id=id_,
                           file=id_.split(":")[0])
    card, bank, only = body("card.ts:2:17", "fee", 1), body("bank.ts:2:17", "fee", 2), body("bank.ts:9:17", "flat", 3)
    module = SpecModule(spec="/p/checkout.props.ts", module="/p/bank.ts", properties=(), functions=(card, bank, only))
    assert (bank, card) == (module.body("bank.ts:2:17", "fee"), module.body("card.ts:2:17", "fee"))
    assert None is module.body("", "fee") is module.function("fee") is module.body("other.ts:1:1", "flat")
    assert only == module.body("", "flat")
    assert module == SpecModule.from_data(json.loads(json.dumps(module.to_data())))


def test_module_kind_checked():
    """from_data refuses data that is not a spec module, naming what came."""
    with pytest.raises(ValueError, match="expected 'spec_module', got 'read_error'"):
        SpecModule.from_data({"kind": "read_error"})


def test_js_module_dir_holds_the_module():
    """The eutaxy/spec JavaScript module ships beside the Python package."""
    folder = js_module_dir()
    assert {"package.json", "spec.js", "spec.d.ts"} <= {p.name for p in folder.iterdir()}
