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

_KINDS: dict[str, type] = {}


def _kind(cls):
    _KINDS[cls.KIND] = cls
    return cls


@_kind
@attrs.frozen(kw_only=True)
class Literal:
    KIND: ClassVar[str] = "literal"
    value: Any

    def to_data(self) -> dict:
        return {"kind": self.KIND, "value": self.value}

    @classmethod
    def from_data(cls, d: dict) -> "Literal":
        return cls(value=d["value"])


@_kind
@attrs.frozen(kw_only=True)
class BinderRef:
    """A read of binder ``index`` (the function's parameter at that position)."""

    KIND: ClassVar[str] = "binder"
    index: int
    name: str

    def to_data(self) -> dict:
        return {"kind": self.KIND, "index": self.index, "name": self.name}

    @classmethod
    def from_data(cls, d: dict) -> "BinderRef":
        return cls(index=d["index"], name=d["name"])


@_kind
@attrs.frozen(kw_only=True)
class FunctionRef:
    """The module's function named by value (not called)."""

    KIND: ClassVar[str] = "function"
    name: str

    def to_data(self) -> dict:
        return {"kind": self.KIND, "name": self.name}

    @classmethod
    def from_data(cls, d: dict) -> "FunctionRef":
        return cls(name=d["name"])


@_kind
@attrs.frozen(kw_only=True)
class Unary:
    KIND: ClassVar[str] = "unary"
    op: str  # "!", "-", "+"
    operand: "Expr"

    def to_data(self) -> dict:
        return {"kind": self.KIND, "op": self.op, "operand": self.operand.to_data()}

    @classmethod
    def from_data(cls, d: dict) -> "Unary":
        return cls(op=d["op"], operand=expr_from_data(d["operand"]))


@_kind
@attrs.frozen(kw_only=True)
class Binary:
    """Comparisons, arithmetic and the logical operators (``&&``, ``||``, ``??``)."""

    KIND: ClassVar[str] = "binary"
    op: str
    left: "Expr"
    right: "Expr"

    def to_data(self) -> dict:
        return {"kind": self.KIND, "op": self.op, "left": self.left.to_data(),
                "right": self.right.to_data()}

    @classmethod
    def from_data(cls, d: dict) -> "Binary":
        return cls(op=d["op"], left=expr_from_data(d["left"]), right=expr_from_data(d["right"]))


@_kind
@attrs.frozen(kw_only=True)
class Conditional:
    KIND: ClassVar[str] = "conditional"
    test: "Expr"
    then: "Expr"
    otherwise: "Expr"

    def to_data(self) -> dict:
        return {"kind": self.KIND, "test": self.test.to_data(), "then": self.then.to_data(),
                "else": self.otherwise.to_data()}

    @classmethod
    def from_data(cls, d: dict) -> "Conditional":
        return cls(test=expr_from_data(d["test"]), then=expr_from_data(d["then"]),
                   otherwise=expr_from_data(d["else"]))


@_kind
@attrs.frozen(kw_only=True)
class FieldRead:
    """``object.name`` (``xs.length`` included)."""

    KIND: ClassVar[str] = "field"
    object: "Expr"
    name: str

    def to_data(self) -> dict:
        return {"kind": self.KIND, "object": self.object.to_data(), "name": self.name}

    @classmethod
    def from_data(cls, d: dict) -> "FieldRead":
        return cls(object=expr_from_data(d["object"]), name=d["name"])


@_kind
@attrs.frozen(kw_only=True)
class IndexRead:
    KIND: ClassVar[str] = "index"
    object: "Expr"
    index: "Expr"

    def to_data(self) -> dict:
        return {"kind": self.KIND, "object": self.object.to_data(), "index": self.index.to_data()}

    @classmethod
    def from_data(cls, d: dict) -> "IndexRead":
        return cls(object=expr_from_data(d["object"]), index=expr_from_data(d["index"]))


@_kind
@attrs.frozen(kw_only=True)
class Call:
    """A call to the module's function (``target: "module"``) or a builtin such as ``Number.isInteger``."""

    KIND: ClassVar[str] = "call"
    callee: str
    target: str  # "module" | "builtin"
    args: tuple["Expr", ...]

    def to_data(self) -> dict:
        return {"kind": self.KIND, "callee": self.callee, "target": self.target,
                "args": [a.to_data() for a in self.args]}

    @classmethod
    def from_data(cls, d: dict) -> "Call":
        return cls(callee=d["callee"], target=d["target"],
                   args=tuple(expr_from_data(a) for a in d["args"]))


@_kind
@attrs.frozen(kw_only=True)
class RegexTest:
    """``/pattern/flags.test(argument)``."""

    KIND: ClassVar[str] = "regex_test"
    pattern: str
    flags: str
    argument: "Expr"

    def to_data(self) -> dict:
        return {"kind": self.KIND, "pattern": self.pattern, "flags": self.flags,
                "argument": self.argument.to_data()}

    @classmethod
    def from_data(cls, d: dict) -> "RegexTest":
        return cls(pattern=d["pattern"], flags=d["flags"], argument=expr_from_data(d["argument"]))


@_kind
@attrs.frozen(kw_only=True)
class Outside:
    """A construct outside the subset: its syntax kind as the compiler names it, its line, its text."""

    KIND: ClassVar[str] = "outside"
    construct: str
    line: int
    text: str

    def to_data(self) -> dict:
        return {"kind": self.KIND, "construct": self.construct, "line": self.line, "text": self.text}

    @classmethod
    def from_data(cls, d: dict) -> "Outside":
        return cls(construct=d["construct"], line=d["line"], text=d.get("text", ""))


@_kind
@attrs.frozen(kw_only=True)
class Local:
    """A read of a locally bound name: the parameter of an enclosing ``every`` arrow (``x`` in
    ``xs.every((x) => x >= 0)``), or in a function body a name a :class:`Let` bound (unique there)."""

    KIND: ClassVar[str] = "local"
    name: str

    def to_data(self) -> dict:
        return {"kind": self.KIND, "name": self.name}

    @classmethod
    def from_data(cls, d: dict) -> "Local":
        return cls(name=d["name"])


@_kind
@attrs.frozen(kw_only=True)
class Every:
    """``array.every((param) => body)``: ``body`` holds for each element, read as ``Local(param)``."""

    KIND: ClassVar[str] = "every"
    array: "Expr"
    param: str
    body: "Expr"

    def to_data(self) -> dict:
        return {"kind": self.KIND, "array": self.array.to_data(), "param": self.param, "body": self.body.to_data()}

    @classmethod
    def from_data(cls, d: dict) -> "Every":
        return cls(array=expr_from_data(d["array"]), param=d["param"], body=expr_from_data(d["body"]))


@_kind
@attrs.frozen(kw_only=True)
class Let:
    """``const name = value;`` followed by the rest of the body (function bodies only)."""

    KIND: ClassVar[str] = "let"
    name: str
    value: "Expr"
    body: "Expr"

    def to_data(self) -> dict:
        return {"kind": self.KIND, "name": self.name, "value": self.value.to_data(), "body": self.body.to_data()}

    @classmethod
    def from_data(cls, d: dict) -> "Let":
        return cls(name=d["name"], value=expr_from_data(d["value"]), body=expr_from_data(d["body"]))


@_kind
@attrs.frozen(kw_only=True)
class RecordLiteral:
    """``{ a: x, b: y }``: ``type`` is the type the compiler gives it where it stands (its contextual type)."""

    KIND: ClassVar[str] = "record"
    fields: tuple[tuple[str, "Expr"], ...]
    type: Any  # a SpecType (kept untyped here so _expr does not import _types)

    def to_data(self) -> dict:
        return {"kind": self.KIND, "fields": [{"name": n, "value": v.to_data()} for n, v in self.fields],
                "type": self.type.to_data()}

    @classmethod
    def from_data(cls, d: dict) -> "RecordLiteral":
        from ._types import type_from_data

        return cls(fields=tuple((f["name"], expr_from_data(f["value"])) for f in d["fields"]),
                   type=type_from_data(d["type"]))


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
