"""Steering reads a precondition's top-level guards, and only those."""

from eutaxy.prover.steering import NO_GUIDE, Guide, guides
from eutaxy.spec import Binary, BinderRef, Call, Literal, RegexTest, Unary

A, B = BinderRef(index=0, name="a"), BinderRef(index=1, name="b")


def _and(*parts):
    tree = parts[0]
    for p in parts[1:]:
        tree = Binary(op="&&", left=tree, right=p)
    return tree


def test_ranges_integers_patterns_and_equals():
    """0 <= a, a < 5, Number.isInteger(a), /^x+$/.test(b) and b === "k" each steer their binder."""
    when = _and(Binary(op="<=", left=Literal(value=0), right=A), Binary(op="<", left=A, right=Literal(value=5)),
                Call(callee="Number.isInteger", target="builtin", args=(A,)),
                RegexTest(pattern="^x+$", flags="", argument=B), Binary(op="===", left=B, right=Literal(value="k")))
    assert [Guide(lo=0, hi=5, hi_strict=True, integer=True), Guide(patterns=(("^x+$", ""),), equals=("k",))] == guides(when, 2)


def test_negative_constants_and_tightest_bound():
    """-10 < a and a > -3 keep the tighter bound, strictness included."""
    when = _and(Binary(op="<", left=Unary(op="-", operand=Literal(value=10)), right=A),
                Binary(op=">", left=A, right=Literal(value=-3)))
    assert Guide(lo=-3, lo_strict=True) == guides(when, 1)[0]


def test_guards_under_or_and_not_do_not_steer():
    """A bound under || or ! does not bound the binder; a regex without anchors is not whole-string."""
    when = _and(Binary(op="||", left=Binary(op="<", left=A, right=Literal(value=1)), right=Literal(value=True)),
                Unary(op="!", operand=Binary(op=">", left=A, right=Literal(value=1))),
                RegexTest(pattern="x+", flags="", argument=B), Binary(op="<=", left=A, right=B))
    assert [NO_GUIDE, NO_GUIDE] == guides(when, 2)
    assert [NO_GUIDE] == guides(None, 1)


def test_admits():
    """The guide's range admits what lies in it, never NaN when bounded."""
    g = Guide(lo=0, hi=5, hi_strict=True)
    assert (True, False, False, False) == (g.admits(0), g.admits(5), g.admits(-1), g.admits(float("nan")))


def test_mentioned_strings_are_collected():
    """String constants of the claim, including those inside constructs outside the subset, steer string draws."""
    from eutaxy.prover.steering import mentioned_strings
    from eutaxy.spec import Outside

    when = Binary(op="&&", left=Outside(construct="CallExpression", line=1, text="s.includes(\"@\") && s.startsWith('v')"),
                  right=Binary(op="===", left=Literal(value="x1"), right=Literal(value=3)))
    assert ("@", "v", "x1") == mentioned_strings(when, None)
