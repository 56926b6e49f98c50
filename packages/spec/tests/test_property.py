"""Properties and spec modules round-trip through plain data."""

import json

import pytest

from eutaxy.spec import (Binary, Binder, BinderRef, ForallProperty, Literal, NotAProperty, NumberType,
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


def test_module_kind_checked():
    """from_data refuses data that is not a spec module, naming what came."""
    with pytest.raises(ValueError, match="expected 'spec_module', got 'read_error'"):
        SpecModule.from_data({"kind": "read_error"})


def test_js_module_dir_holds_the_module():
    """The eutaxy/spec JavaScript module ships beside the Python package."""
    folder = js_module_dir()
    assert {"package.json", "spec.js", "spec.d.ts"} <= {p.name for p in folder.iterdir()}
