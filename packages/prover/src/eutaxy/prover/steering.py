"""What a precondition says about each binder, read off its expression tree.

Where ``when`` compares a binder with a constant (``0 <= n``, ``n < 5``), the
draws are steered into that range, as an interval guard would; where it tests
``Number.isInteger(n)`` draws stay integral; where it tests a whole-string
pattern (``/^[a-z]+$/.test(s)``) strings are walked from the pattern. Only the
conjuncts of the top-level ``&&`` chain steer: a guard under ``||`` or ``!``
does not bound the binder. Steering only aims the draws; ``when``, evaluated
in Node, still decides every input.
"""

from __future__ import annotations

import math
from typing import Optional

import attrs

from eutaxy.spec import Binary, BinderRef, Call, Expr, Literal, RegexTest, Unary

from .regex_walk import is_whole_string
from .values import BigInt, decode, is_number


@attrs.frozen(kw_only=True)
class Guide:
    """The steering for one binder. ``lo``/``hi`` are numbers (or ints for bigints), ``None`` when open."""

    lo: Optional[float] = None
    hi: Optional[float] = None
    lo_strict: bool = False
    hi_strict: bool = False
    integer: bool = False
    #: Whole-string patterns (pattern, flags) the binder must match.
    patterns: tuple[tuple[str, str], ...] = ()
    #: Constants the binder is compared equal to (``kind === "open"``, ``n === 3``).
    equals: tuple = ()

    @property
    def bounded(self) -> bool:
        return self.lo is not None or self.hi is not None

    def admits(self, x: float) -> bool:
        """Whether ``x`` lies in the guide's range (NaN never does)."""
        if isinstance(x, float) and math.isnan(x):
            return not self.bounded
        if self.lo is not None and (x < self.lo or (self.lo_strict and x == self.lo)):
            return False
        if self.hi is not None and (x > self.hi or (self.hi_strict and x == self.hi)):
            return False
        return True


NO_GUIDE = Guide()

_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "===": "===", "==": "=="}


def conjuncts(expr: Optional[Expr]) -> list[Expr]:
    if expr is None:
        return []
    if isinstance(expr, Binary) and expr.op == "&&":
        return conjuncts(expr.left) + conjuncts(expr.right)
    return [expr]


def _constant(expr: Expr):
    """The numeric (or bigint) constant ``expr`` denotes, else ``None``."""
    if isinstance(expr, Literal):
        value = decode(expr.value)
        if is_number(value):
            return value
        if isinstance(value, BigInt):
            return value.value
        return None
    if isinstance(expr, Unary) and expr.op == "-":
        inner = _constant(expr.operand)
        return None if inner is None else -inner
    return None


def _literal(expr: Expr):
    if isinstance(expr, Literal):
        return (decode(expr.value),)
    return None


def guides(when: Optional[Expr], binder_count: int) -> list[Guide]:
    """One guide per binder, from the top-level conjuncts of ``when``."""
    found: list[dict] = [dict() for _ in range(binder_count)]
    for conjunct in conjuncts(when):
        _read_conjunct(conjunct, found)
    return [Guide(**fields) if fields else NO_GUIDE for fields in found]


def _read_conjunct(expr: Expr, found: list[dict]) -> None:
    if isinstance(expr, Call) and expr.target == "builtin" and expr.callee in ("Number.isInteger", "Number.isSafeInteger"):
        slot = _slot(found, expr.args[0]) if len(expr.args) == 1 and isinstance(expr.args[0], BinderRef) else None
        if slot is not None:
            slot["integer"] = True
        return
    if isinstance(expr, RegexTest) and isinstance(expr.argument, BinderRef):
        slot = _slot(found, expr.argument)
        if slot is not None and is_whole_string(expr.pattern):
            slot["patterns"] = slot.get("patterns", ()) + ((expr.pattern, expr.flags),)
        return
    if not isinstance(expr, Binary) or expr.op not in _FLIP:
        return
    if isinstance(expr.left, BinderRef):
        binder, op, other = expr.left, expr.op, expr.right
    elif isinstance(expr.right, BinderRef):
        binder, op, other = expr.right, _FLIP[expr.op], expr.left
    else:
        return
    slot = _slot(found, binder)
    if slot is None:
        return
    if op in ("===", "=="):
        literal = _literal(other)
        if literal is not None:
            slot["equals"] = slot.get("equals", ()) + literal
        return
    bound = _constant(other)
    if bound is None:
        return
    if op in (">", ">="):
        if slot.get("lo") is None or bound > slot["lo"] or (bound == slot["lo"] and op == ">"):
            slot["lo"], slot["lo_strict"] = bound, op == ">"
    else:
        if slot.get("hi") is None or bound < slot["hi"] or (bound == slot["hi"] and op == "<"):
            slot["hi"], slot["hi_strict"] = bound, op == "<"


def _slot(found: list[dict], ref: BinderRef) -> Optional[dict]:
    if 0 <= ref.index < len(found):
        return found[ref.index]
    return None
