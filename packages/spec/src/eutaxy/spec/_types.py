"""Binder types: what a parameter of a function under test ranges over.

The reader (Node, on the TypeScript compiler's API) resolves every type the way
the user's compiler does and writes it as one of these kinds; Python draws,
edges and shrinks from them without ever seeing TypeScript. A release may add a
kind, so code switching over ``kind`` keeps a default branch.

Every type carries ``name``: a declared type by its name, an instantiated or
inline one as the compiler prints it.
"""

from __future__ import annotations

from typing import Any, ClassVar, Union

import attrs

from ._data import PLAIN_TUPLE, Data, field, node, nodes

_KINDS: dict[str, type] = {}


def _kind(cls):
    _KINDS[cls.KIND] = cls
    return cls


_TYPE = node(lambda d: type_from_data(d))
_TYPES = nodes(lambda d: type_from_data(d))


@_kind
@attrs.frozen(kw_only=True)
class NumberType(Data):
    """The JavaScript double: drawn with fractions, -0, NaN and the infinities."""

    KIND: ClassVar[str] = "number"
    name: str = "number"


@_kind
@attrs.frozen(kw_only=True)
class BigIntType(Data):
    KIND: ClassVar[str] = "bigint"
    name: str = "bigint"


@_kind
@attrs.frozen(kw_only=True)
class BooleanType(Data):
    KIND: ClassVar[str] = "boolean"
    name: str = "boolean"


@_kind
@attrs.frozen(kw_only=True)
class StringType(Data):
    """A string of UTF-16 code units, as JavaScript counts them."""

    KIND: ClassVar[str] = "string"
    name: str = "string"


@_kind
@attrs.frozen(kw_only=True)
class LiteralType(Data):
    """One literal value (``"open"``, ``3``, ``true``); a bigint literal is ``{"$": "bigint"}``."""

    KIND: ClassVar[str] = "literal"
    name: str = ""
    value: Any


@_kind
@attrs.frozen(kw_only=True)
class LiteralUnionType(Data):
    """A union of literals (``"a" | "b"``): every member is an edge and is drawn."""

    KIND: ClassVar[str] = "literal_union"
    name: str = ""
    values: tuple = field(codec=PLAIN_TUPLE)


@_kind
@attrs.frozen(kw_only=True)
class NullableType(Data):
    """``T | null`` and/or ``T | undefined``; null (or undefined) is drawn among the values."""

    KIND: ClassVar[str] = "nullable"
    name: str = ""
    inner: "SpecType" = field(codec=_TYPE)
    null: bool = True
    undefined: bool = False


@attrs.frozen(kw_only=True)
class Field(Data):
    name: str
    type: "SpecType" = field(codec=_TYPE)
    optional: bool = False


@_kind
@attrs.frozen(kw_only=True)
class RecordType(Data):
    """An object type with named fields (an interface, an alias, an inline type), drawn field by field."""

    KIND: ClassVar[str] = "record"
    name: str = ""
    fields: tuple[Field, ...] = field(codec=nodes(Field.from_data))


@attrs.frozen(kw_only=True)
class Variant(Data):
    """One arm of a tagged union: its tag value and the whole record (the tag field included)."""

    tag: Any
    record: RecordType = field(codec=node(RecordType.from_data))


@_kind
@attrs.frozen(kw_only=True)
class TaggedUnionType(Data):
    """A union of records told apart by one literal field (``tag``); every tag is drawn."""

    KIND: ClassVar[str] = "tagged_union"
    name: str = ""
    tag: str
    variants: tuple[Variant, ...] = field(codec=nodes(Variant.from_data))


@_kind
@attrs.frozen(kw_only=True)
class UnionType(Data):
    """Any other union the compiler resolved (``number | string``): a member is picked, then drawn."""

    KIND: ClassVar[str] = "union"
    name: str = ""
    members: tuple["SpecType", ...] = field(codec=_TYPES)


@_kind
@attrs.frozen(kw_only=True)
class ArrayType(Data):
    """``T[]``, ``readonly T[]``, ``Array<T>``, ``ReadonlyArray<T>``: mostly short, up to sixteen."""

    KIND: ClassVar[str] = "array"
    name: str = ""
    element: "SpecType" = field(codec=_TYPE)
    readonly: bool = False


@_kind
@attrs.frozen(kw_only=True)
class TemplateType(Data):
    """A template literal type (`` `${number}px` ``): ``texts[0]``, hole 0, ``texts[1]``, ... ``texts[-1]``.

    A string binder whose values are the texts around each hole's value as
    ``String()`` writes it; holes are numbers, bigints, booleans, strings or literals.
    """

    KIND: ClassVar[str] = "template"
    name: str = ""
    texts: tuple[str, ...] = field(codec=PLAIN_TUPLE)
    holes: tuple["SpecType", ...] = field(codec=_TYPES)

    def __attrs_post_init__(self) -> None:
        assert len(self.texts) == len(self.holes) + 1, (self.texts, self.holes)


@_kind
@attrs.frozen(kw_only=True)
class UnsupportedType(Data):
    """A type outside what the rungs draw (a function, a class instance, a recursive type)."""

    KIND: ClassVar[str] = "unsupported"
    name: str = ""
    reason: str = field(missing="")


SpecType = Union[NumberType, BigIntType, BooleanType, StringType, LiteralType, LiteralUnionType,
                 NullableType, RecordType, TaggedUnionType, UnionType, ArrayType, TemplateType, UnsupportedType]

TYPE_KINDS = tuple(_KINDS)


def type_from_data(d: dict) -> SpecType:
    """Build a SpecType from its plain data; an unknown kind reads as unsupported, never as an error."""
    cls = _KINDS.get(d.get("kind"))
    if cls is None:
        return UnsupportedType(reason=f"unknown type kind {d.get('kind')!r}", name=d.get("name", ""))
    return cls.from_data(d)
