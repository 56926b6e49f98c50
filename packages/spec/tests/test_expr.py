"""Claim trees round-trip through plain data, and outside-the-subset nodes are found."""

import json

from eutaxy.spec import (EXPR_KINDS, Binary, BinderRef, Call, Conditional, Every, FieldRead, FunctionRef,
                         IndexRead, Let, Literal, Local, NumberType, Outside, RecordLiteral, RecordType, RegexTest,
                         Unary, expr_from_data, outside_nodes)

X = BinderRef(index=0, name="x")
TREE = Binary(op="&&", left=Binary(op="<=", left=Literal(value=0), right=X), right=Conditional(
    test=Unary(op="!", operand=Call(callee="Number.isNaN", target="builtin", args=(X,))),
    then=RegexTest(pattern="^a+$", flags="i", argument=FieldRead(object=X, name="label")),
    otherwise=Binary(op="===", left=IndexRead(object=X, index=Literal(value=1)),
                     right=Outside(construct="TemplateExpression", line=7, text="`${x}`"))))


def test_round_trip():
    """A tree holding every kind survives to_data, JSON and from_data."""
    data = json.loads(json.dumps(TREE.to_data()))
    assert TREE == expr_from_data(data)
    call = Call(callee="decide", target="module", args=(FunctionRef(name="decide"),))
    assert call == expr_from_data(call.to_data())
    every = Every(array=X, param="v", body=Binary(op=">=", left=Local(name="v"), right=Literal(value=0)))
    assert every == expr_from_data(json.loads(json.dumps(every.to_data())))


def test_body_kinds_round_trip():
    """A function body's kinds (let, local, record) survive plain data, and outside nodes inside them are found."""
    loop = Outside(construct="ForStatement", line=4, text="for (;;) {}")
    body = Let(name="half", value=Binary(op="/", left=X, right=Literal(value=2)),
               body=RecordLiteral(fields=(("value", Local(name="half")), ("rest", loop)),
                                  type=RecordType(fields=(), name="Split")))
    assert body == expr_from_data(json.loads(json.dumps(body.to_data())))
    assert [loop] == outside_nodes(body)
    assert NumberType() != body.value


def test_kinds_listed():
    """Every kind is registered (a new one needs a case above)."""
    assert {"literal", "binder", "function", "unary", "binary", "conditional", "field", "index", "call",
            "regex_test", "local", "every", "outside", "let", "record"} == set(EXPR_KINDS)


def test_outside_nodes_found_with_line():
    """outside_nodes lists what an engine must refuse, with construct and line."""
    assert [Outside(construct="TemplateExpression", line=7, text="`${x}`")] == outside_nodes(TREE)


def test_unknown_kind_is_outside():
    """An expression kind this version does not know is outside the subset, not an error."""
    assert "outside" == expr_from_data({"kind": "spread", "line": 3}).KIND
