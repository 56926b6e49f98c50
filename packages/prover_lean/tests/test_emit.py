"""The emitter's handling of declarations: bodies found by declaration, never by name, and writes to built-ins."""

from eutaxy.prover_lean import emit_module
from eutaxy.spec import (Binder, ForallProperty, FunctionDef, GlobalWrite, NumberType, SpecModule,
                         expr_from_data)


def _double(ident: str, factor: int) -> FunctionDef:
    body = expr_from_data({"kind": "binary", "op": "*", "left": {"kind": "binder", "index": 0, "name": "n"},
                           "right": {"kind": "literal", "value": factor}})
    return FunctionDef(name="scale", params=(Binder(name="n", type=NumberType()),), returns=NumberType(),
                       body=body, line=1, id=ident, file=ident.split(":")[0])


def _module(**kwargs) -> SpecModule:
    a, b = _double("a.ts:1:17", 2), _double("b.ts:1:17", 3)
    ensures = expr_from_data({"kind": "binary", "op": "<=", "left": {
        "kind": "call", "callee": "scale", "target": "module", "ref": a.id,
        "args": [{"kind": "binder", "index": 0, "name": "n"}]}, "right": {
        "kind": "call", "callee": "scale", "target": "module", "ref": b.id,
        "args": [{"kind": "binder", "index": 0, "name": "n"}]}})
    when = expr_from_data({"kind": "binary", "op": ">=", "left": {"kind": "binder", "index": 0, "name": "n"},
                           "right": {"kind": "literal", "value": 0}})
    prop = ForallProperty(name="twoScales", function="scale", ref=a.id, binders=(Binder(name="n", type=NumberType()),),
                          when=when, ensures=ensures, line=4)
    return SpecModule(spec="/x/domain.props.ts", module="/x/a.ts", properties=(prop,), functions=(a, b), **kwargs)


def test_two_functions_of_one_name_are_two_definitions():
    """scale in a.ts and scale in b.ts are two bodies: f_scale and f_scale'2, each called where the compiler said."""
    text = emit_module(_module()).text
    assert "def f_scale (v_n : Int) : Int :=\n  (v_n * 2)" in text
    assert "def «f_scale'2» (v_n : Int) : Int :=\n  (v_n * 3)" in text
    assert "decide ((f_scale v_n) <= («f_scale'2» v_n))" in text
    assert "simp only [f_scale, «f_scale'2»] at *" in text


def test_a_write_to_a_built_in_keeps_every_property_out_naming_it():
    """A source file writing Math.floor: every property UNKNOWN (unsupported) naming the file, line and write."""
    write = GlobalWrite(file="polyfill.ts", line=3, target="Math.floor", text="Math.floor = Math.ceil")
    emission = emit_module(_module(global_writes=(write,)))
    refused = emission.unsupported["twoScales"]
    assert ("an assignment to a built-in", 3, "polyfill.ts") == (refused.construct, refused.line, refused.to_data()["file"])
    assert "polyfill.ts writes Math.floor" in refused.text
    assert {} == emission.theorems
