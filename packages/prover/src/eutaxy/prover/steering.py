"""What a precondition says about each binder, read off its expression tree.

Where ``when`` compares a binder with a constant (``0 <= n``, ``n < 5``), the
draws are steered into that range, as an interval guard would; where it tests
``Number.isInteger(n)`` draws stay integral; where it tests a whole-string
pattern (``/^[a-z]+$/.test(s)``) strings are walked from the pattern. Only the
conjuncts of the top-level ``&&`` chain steer: a guard under ``||`` or ``!``
does not bound the binder. Steering only aims the draws; ``when``, evaluated
in Node, still decides every input.

The same guards steer the parts of a binder: a record's fields (``a.major >=
0``), an array's elements (``xs.every((x) => 0 <= x)``) and the length of an
array or a string (``s.length <= 3``). Each binder's :class:`Guide` is a tree:
``field(name)`` and ``element`` give the guides of its parts.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Optional

import attrs

from eutaxy.spec import (ArrayType, Binary, BinderRef, Call, Every, Expr, FieldRead, Literal, Local,
                         NullableType, Outside, RecordType, RegexTest, SpecType, StringType, TaggedUnionType,
                         Unary, children)
from eutaxy.spec.values import BigInt, decode, is_number

from .regex_walk import is_whole_string


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
    #: The guides of a record's fields, by name.
    fields: tuple[tuple[str, "Guide"], ...] = ()
    #: The guide of an array's elements.
    element: Optional["Guide"] = None
    #: The guide of an array's or a string's length.
    length: Optional["Guide"] = None

    # The draws ask these of a guide on every value, so they are worked out once per guide.

    @functools.cached_property
    def bounded(self) -> bool:
        return self.lo is not None or self.hi is not None

    @functools.cached_property
    def integral_ends(self) -> tuple[Optional[int], Optional[int]]:
        """The least and the greatest integer in the range; ``None`` for an open or infinite end."""
        lo, hi = self.lo, self.hi
        lo_i = None if lo is None or not math.isfinite(lo) else math.ceil(lo) + (1 if self.lo_strict and float(lo).is_integer() else 0)
        hi_i = None if hi is None or not math.isfinite(hi) else math.floor(hi) - (1 if self.hi_strict and float(hi).is_integer() else 0)
        return lo_i, hi_i

    def field(self, name: str) -> "Guide":
        for field_name, guide in self.fields:
            if field_name == name:
                return guide
        return NO_GUIDE

    @property
    def elements(self) -> "Guide":
        return self.element or NO_GUIDE

    @property
    def lengths(self) -> "Guide":
        return self.length or NO_GUIDE

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


#: A part of a binder: a field name, ELEMENT for an array's elements, LENGTH for its length.
ELEMENT, LENGTH = "[]", ".length"


def guides(when: Optional[Expr], binder_count: int, types: Optional[list[SpecType]] = None) -> list[Guide]:
    """One guide per binder, from the top-level conjuncts of ``when``.

    ``types`` (the binders' types) lets ``x.length`` steer the length of an array
    or a string rather than a record's field called ``length``.
    """
    found: dict[tuple, dict] = {}
    reader = _Reader(found, binder_count, list(types) if types is not None else [None] * binder_count)
    for conjunct in conjuncts(when):
        reader.conjunct(conjunct, {})
    return [_build(found, (i,)) for i in range(binder_count)]


def _build(found: dict[tuple, dict], path: tuple) -> Guide:
    fields = dict(found.get(path, {}))
    children = sorted({p[len(path)] for p in found if len(p) > len(path) and p[:len(path)] == path})
    for child in children:
        guide = _build(found, path + (child,))
        if guide is NO_GUIDE:
            continue
        if child == ELEMENT:
            fields["element"] = guide
        elif child == LENGTH:
            fields["length"] = guide
        else:
            fields["fields"] = fields.get("fields", ()) + ((child, guide),)
    return Guide(**fields) if fields else NO_GUIDE


def _part_type(t: Optional[SpecType], part: str) -> Optional[SpecType]:
    """The type of one part of ``t`` (through nullables), ``None`` when unknown."""
    while isinstance(t, NullableType):
        t = t.inner
    if part == ELEMENT:
        return t.element if isinstance(t, ArrayType) else None
    if isinstance(t, RecordType):
        return next((f.type for f in t.fields if f.name == part), None)
    if isinstance(t, TaggedUnionType):
        return next((f.type for v in t.variants for f in v.record.fields if f.name == part), None)
    return None


class _Reader:
    def __init__(self, found: dict[tuple, dict], count: int, types: list) -> None:
        self.found = found
        self.count = count
        self.types = types

    def path(self, expr: Expr, local: dict) -> Optional[tuple[tuple, Optional[SpecType]]]:
        """The binder part ``expr`` reads (``a``, ``a.major``, ``x`` of an ``every``), with its type."""
        if isinstance(expr, BinderRef):
            if 0 <= expr.index < self.count:
                return (expr.index,), self.types[expr.index]
            return None
        if isinstance(expr, Local):
            return local.get(expr.name)
        if isinstance(expr, FieldRead):
            inner = self.path(expr.object, local)
            if inner is None:
                return None
            path, t = inner
            base = t
            while isinstance(base, NullableType):
                base = base.inner
            if expr.name == "length" and (isinstance(base, (ArrayType, StringType)) or base is None):
                return path + (LENGTH,), None
            return path + (expr.name,), _part_type(t, expr.name)
        return None

    def slot(self, path: tuple) -> dict:
        return self.found.setdefault(path, {})

    def conjunct(self, expr: Expr, local: dict) -> None:
        if isinstance(expr, Binary) and expr.op == "&&":
            self.conjunct(expr.left, local)
            self.conjunct(expr.right, local)
            return
        if isinstance(expr, Every):
            array = self.path(expr.array, local)
            if array is not None:
                path, t = array
                inner = dict(local)
                inner[expr.param] = (path + (ELEMENT,), _part_type(t, ELEMENT))
                self.conjunct(expr.body, inner)
            return
        if isinstance(expr, Call) and expr.target == "builtin" and expr.callee in ("Number.isInteger", "Number.isSafeInteger"):
            target = self.path(expr.args[0], local) if len(expr.args) == 1 else None
            if target is not None:
                self.slot(target[0])["integer"] = True
            return
        if isinstance(expr, RegexTest):
            target = self.path(expr.argument, local)
            if target is not None and is_whole_string(expr.pattern):
                slot = self.slot(target[0])
                slot["patterns"] = slot.get("patterns", ()) + ((expr.pattern, expr.flags),)
            return
        if not isinstance(expr, Binary) or expr.op not in _FLIP:
            return
        left, right = self.path(expr.left, local), self.path(expr.right, local)
        if left is not None and right is None:
            target, op, other = left, expr.op, expr.right
        elif right is not None and left is None:
            target, op, other = right, _FLIP[expr.op], expr.left
        else:
            return
        path = target[0]
        slot = self.slot(path)
        if path[-1] == LENGTH:
            slot["integer"] = True
        if op in ("===", "=="):
            literal = _literal(other)
            if literal is not None:
                slot["equals"] = slot.get("equals", ()) + literal
                bound = _constant(other)
                if bound is not None and path[-1] == LENGTH:
                    slot["lo"], slot["hi"], slot["lo_strict"], slot["hi_strict"] = bound, bound, False, False
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


#: A short quoted string in source text, double or single quotes.
_QUOTED = re.compile(r"\"([^\"\\]{1,32})\"|'([^'\\]{1,32})'")


def mentioned_strings(*exprs: Optional[Expr]) -> tuple[str, ...]:
    """Every non-empty string constant in the trees (an ``outside`` node's text is read for
    quoted strings too, so ``s.includes("@")`` counts), distinct, in order."""
    found: dict[str, None] = {}

    def walk(e) -> None:
        if isinstance(e, Literal) and isinstance(e.value, str) and e.value:
            found.setdefault(e.value)
        if isinstance(e, Outside):
            for match in _QUOTED.finditer(e.text):
                text = match.group(1) if match.group(1) is not None else match.group(2)
                found.setdefault(text)
        for child in children(e):
            walk(child)

    for expr in exprs:
        if expr is not None:
            walk(expr)
    return tuple(found)[:32]
