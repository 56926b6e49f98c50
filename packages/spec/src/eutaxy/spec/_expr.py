"""Claim and precondition expression trees.

The reader writes a claim's body as a tree where it is in the subset the
engines read (comparisons, ``&& || !``, the conditional operator, arithmetic,
field reads, calls to the module's functions and a few builtins) and marks
each node outside it with the construct and the line, so an engine can refuse
exactly what it cannot translate. The sampling rungs never evaluate these
trees (the evaluator runs the real arrows in Node); they read them only to
steer draws (``0 <= n``, ``/^[a-z]+$/.test(s)``).

Literal values use the evaluator's value encoding: JSON for plain values,
``{"$": "number", "v": "NaN"}`` and friends for what JSON cannot say.
"""

from __future__ import annotations

from typing import Any, ClassVar, Union

import attrs

from ._data import Codec, Data, field, node, nodes

_KINDS: dict[str, type] = {}


def _kind(cls):
    _KINDS[cls.KIND] = cls
    return cls


def _type_from_data(d: dict) -> Any:
    from ._types import type_from_data

    return type_from_data(d)


_EXPR = node(lambda d: expr_from_data(d))
_EXPRS = nodes(lambda d: expr_from_data(d))
_SPEC_TYPE = node(_type_from_data)
#: A record literal's fields, written as ``[{"name": ..., "value": ...}]`` to keep their order.
_RECORD_FIELDS = Codec(dump=lambda fs: [{"name": n, "value": v.to_data()} for n, v in fs],
                       load=lambda ds: tuple((f["name"], expr_from_data(f["value"])) for f in ds))


@_kind
@attrs.frozen(kw_only=True)
class Literal(Data):
    KIND: ClassVar[str] = "literal"
    value: Any


@_kind
@attrs.frozen(kw_only=True)
class BinderRef(Data):
    """A read of binder ``index`` (the function's parameter at that position)."""

    KIND: ClassVar[str] = "binder"
    index: int
    name: str


@_kind
@attrs.frozen(kw_only=True)
class FunctionRef(Data):
    """A module function named by value (not called); ``ref`` its declaration, when the reader resolved one."""

    KIND: ClassVar[str] = "function"
    name: str
    ref: str = field(omit_default=True, default="")


@_kind
@attrs.frozen(kw_only=True)
class Unary(Data):
    KIND: ClassVar[str] = "unary"
    op: str  # "!", "-", "+"
    operand: "Expr" = field(codec=_EXPR)


@_kind
@attrs.frozen(kw_only=True)
class Binary(Data):
    """Comparisons, arithmetic and the logical operators (``&&``, ``||``, ``??``)."""

    KIND: ClassVar[str] = "binary"
    op: str
    left: "Expr" = field(codec=_EXPR)
    right: "Expr" = field(codec=_EXPR)


@_kind
@attrs.frozen(kw_only=True)
class Conditional(Data):
    KIND: ClassVar[str] = "conditional"
    test: "Expr" = field(codec=_EXPR)
    then: "Expr" = field(codec=_EXPR)
    otherwise: "Expr" = field(codec=_EXPR, key="else")


@_kind
@attrs.frozen(kw_only=True)
class FieldRead(Data):
    """``object.name`` (``xs.length`` included)."""

    KIND: ClassVar[str] = "field"
    object: "Expr" = field(codec=_EXPR)
    name: str


@_kind
@attrs.frozen(kw_only=True)
class IndexRead(Data):
    KIND: ClassVar[str] = "index"
    object: "Expr" = field(codec=_EXPR)
    index: "Expr" = field(codec=_EXPR)


@_kind
@attrs.frozen(kw_only=True)
class Call(Data):
    """A call to a module function (``target: "module"``) or a builtin such as ``Number.isInteger``.

    For a module call, ``callee`` is the declared name (for messages) and ``ref`` the
    declaration the compiler resolved the call to (a :class:`FunctionDef`'s ``id``):
    the body is found by ``ref``, never by name.
    """

    KIND: ClassVar[str] = "call"
    callee: str
    target: str  # "module" | "builtin"
    args: tuple["Expr", ...] = field(codec=_EXPRS)
    ref: str = field(omit_default=True, default="")


@_kind
@attrs.frozen(kw_only=True)
class RegexTest(Data):
    """``/pattern/flags.test(argument)``."""

    KIND: ClassVar[str] = "regex_test"
    pattern: str
    flags: str
    argument: "Expr" = field(codec=_EXPR)


@_kind
@attrs.frozen(kw_only=True)
class Outside(Data):
    """A construct outside the subset: its syntax kind as the compiler names it, its line, its text."""

    KIND: ClassVar[str] = "outside"
    construct: str
    line: int
    text: str = field(missing="")


@_kind
@attrs.frozen(kw_only=True)
class Local(Data):
    """A read of a locally bound name: the parameter of an enclosing ``every`` arrow (``x`` in
    ``xs.every((x) => x >= 0)``), or in a function body a name a :class:`Let` bound (unique there)."""

    KIND: ClassVar[str] = "local"
    name: str


@_kind
@attrs.frozen(kw_only=True)
class Every(Data):
    """``array.every((param) => body)``: ``body`` holds for each element, read as ``Local(param)``."""

    KIND: ClassVar[str] = "every"
    array: "Expr" = field(codec=_EXPR)
    param: str
    body: "Expr" = field(codec=_EXPR)


@_kind
@attrs.frozen(kw_only=True)
class Let(Data):
    """``const name = value;`` followed by the rest of the body (function bodies only)."""

    KIND: ClassVar[str] = "let"
    name: str
    value: "Expr" = field(codec=_EXPR)
    body: "Expr" = field(codec=_EXPR)


@_kind
@attrs.frozen(kw_only=True)
class RecordLiteral(Data):
    """``{ a: x, b: y }``: ``type`` is the type the compiler gives it where it stands (its contextual type)."""

    KIND: ClassVar[str] = "record"
    fields: tuple[tuple[str, "Expr"], ...] = field(codec=_RECORD_FIELDS)
    type: Any = field(codec=_SPEC_TYPE)  # a SpecType (kept untyped here so _expr does not import _types)


Expr = Union[Literal, BinderRef, FunctionRef, Unary, Binary, Conditional, FieldRead, IndexRead,
             Call, RegexTest, Local, Every, Outside, Let, RecordLiteral]

EXPR_KINDS = tuple(_KINDS)


def expr_from_data(d: dict) -> Expr:
    """Build an expression tree from plain data; an unknown kind reads as outside the subset."""
    cls = _KINDS.get(d.get("kind"))
    if cls is None:
        return Outside(construct=f"unknown:{d.get('kind')}", line=d.get("line", 0), text="")
    return cls.from_data(d)


def outside_nodes(expr: Expr) -> list[Outside]:
    """Every node of ``expr`` outside the subset, in source order."""
    found: list[Outside] = []

    def walk(e) -> None:
        if isinstance(e, Outside):
            found.append(e)
            return
        for child in children(e):
            walk(child)

    walk(expr)
    return found


def children(e) -> tuple:
    """The direct subtrees of ``e``, in source order."""
    if isinstance(e, Unary):
        return (e.operand,)
    if isinstance(e, Binary):
        return (e.left, e.right)
    if isinstance(e, Conditional):
        return (e.test, e.then, e.otherwise)
    if isinstance(e, FieldRead):
        return (e.object,)
    if isinstance(e, IndexRead):
        return (e.object, e.index)
    if isinstance(e, Call):
        return e.args
    if isinstance(e, RegexTest):
        return (e.argument,)
    if isinstance(e, Every):
        return (e.array, e.body)
    if isinstance(e, Let):
        return (e.value, e.body)
    if isinstance(e, RecordLiteral):
        return tuple(v for _, v in e.fields)
    return ()
