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

_KINDS: dict[str, type] = {}


def _kind(cls):
    _KINDS[cls.KIND] = cls
    return cls


@_kind
@attrs.frozen(kw_only=True)
class NumberType:
    """The JavaScript double: drawn with fractions, -0, NaN and the infinities."""

    KIND: ClassVar[str] = "number"
    name: str = "number"

    def to_data(self) -> dict:
        return {"kind": self.KIND, "name": self.name}

    @classmethod
    def from_data(cls, d: dict) -> "NumberType":
        return cls(name=d.get("name", "number"))


@_kind
@attrs.frozen(kw_only=True)
class BigIntType:
    KIND: ClassVar[str] = "bigint"
    name: str = "bigint"

    def to_data(self) -> dict:
        return {"kind": self.KIND, "name": self.name}

    @classmethod
    def from_data(cls, d: dict) -> "BigIntType":
        return cls(name=d.get("name", "bigint"))


@_kind
@attrs.frozen(kw_only=True)
class BooleanType:
    KIND: ClassVar[str] = "boolean"
    name: str = "boolean"

    def to_data(self) -> dict:
        return {"kind": self.KIND, "name": self.name}

    @classmethod
    def from_data(cls, d: dict) -> "BooleanType":
        return cls(name=d.get("name", "boolean"))


@_kind
@attrs.frozen(kw_only=True)
class StringType:
    """A string of UTF-16 code units, as JavaScript counts them."""

    KIND: ClassVar[str] = "string"
    name: str = "string"

    def to_data(self) -> dict:
        return {"kind": self.KIND, "name": self.name}

    @classmethod
    def from_data(cls, d: dict) -> "StringType":
        return cls(name=d.get("name", "string"))


@_kind
@attrs.frozen(kw_only=True)
class LiteralType:
    """One literal value (``"open"``, ``3``, ``true``); a bigint literal is ``{"$": "bigint"}``."""

    KIND: ClassVar[str] = "literal"
    value: Any
    name: str = ""

    def to_data(self) -> dict:
        return {"kind": self.KIND, "name": self.name, "value": self.value}

    @classmethod
    def from_data(cls, d: dict) -> "LiteralType":
        return cls(value=d["value"], name=d.get("name", ""))


@_kind
@attrs.frozen(kw_only=True)
class LiteralUnionType:
    """A union of literals (``"a" | "b"``): every member is an edge and is drawn."""

    KIND: ClassVar[str] = "literal_union"
    values: tuple
    name: str = ""

    def to_data(self) -> dict:
        return {"kind": self.KIND, "name": self.name, "values": list(self.values)}

    @classmethod
    def from_data(cls, d: dict) -> "LiteralUnionType":
        return cls(values=tuple(d["values"]), name=d.get("name", ""))


@_kind
@attrs.frozen(kw_only=True)
class NullableType:
    """``T | null`` and/or ``T | undefined``; null (or undefined) is drawn among the values."""

    KIND: ClassVar[str] = "nullable"
    inner: "SpecType"
    null: bool = True
    undefined: bool = False
    name: str = ""

    def to_data(self) -> dict:
        return {"kind": self.KIND, "name": self.name, "inner": self.inner.to_data(),
                "null": self.null, "undefined": self.undefined}

    @classmethod
    def from_data(cls, d: dict) -> "NullableType":
        return cls(inner=type_from_data(d["inner"]), null=d.get("null", True),
                   undefined=d.get("undefined", False), name=d.get("name", ""))


@attrs.frozen(kw_only=True)
class Field:
    name: str
    type: "SpecType"
    optional: bool = False

    def to_data(self) -> dict:
        return {"name": self.name, "type": self.type.to_data(), "optional": self.optional}

    @classmethod
    def from_data(cls, d: dict) -> "Field":
        return cls(name=d["name"], type=type_from_data(d["type"]), optional=d.get("optional", False))


@_kind
@attrs.frozen(kw_only=True)
class RecordType:
    """An object type with named fields (an interface, an alias, an inline type), drawn field by field."""

    KIND: ClassVar[str] = "record"
    fields: tuple[Field, ...]
    name: str = ""

    def to_data(self) -> dict:
        return {"kind": self.KIND, "name": self.name, "fields": [f.to_data() for f in self.fields]}

    @classmethod
    def from_data(cls, d: dict) -> "RecordType":
        return cls(fields=tuple(Field.from_data(f) for f in d["fields"]), name=d.get("name", ""))


@attrs.frozen(kw_only=True)
class Variant:
    """One arm of a tagged union: its tag value and the whole record (the tag field included)."""

    tag: Any
    record: RecordType

    def to_data(self) -> dict:
        return {"tag": self.tag, "record": self.record.to_data()}

    @classmethod
    def from_data(cls, d: dict) -> "Variant":
        return cls(tag=d["tag"], record=RecordType.from_data(d["record"]))


@_kind
@attrs.frozen(kw_only=True)
class TaggedUnionType:
    """A union of records told apart by one literal field (``tag``); every tag is drawn."""

    KIND: ClassVar[str] = "tagged_union"
    tag: str
    variants: tuple[Variant, ...]
    name: str = ""

    def to_data(self) -> dict:
        return {"kind": self.KIND, "name": self.name, "tag": self.tag,
                "variants": [v.to_data() for v in self.variants]}

    @classmethod
    def from_data(cls, d: dict) -> "TaggedUnionType":
        return cls(tag=d["tag"], variants=tuple(Variant.from_data(v) for v in d["variants"]),
                   name=d.get("name", ""))


@_kind
@attrs.frozen(kw_only=True)
class UnionType:
    """Any other union the compiler resolved (``number | string``): a member is picked, then drawn."""

    KIND: ClassVar[str] = "union"
    members: tuple["SpecType", ...]
    name: str = ""

    def to_data(self) -> dict:
        return {"kind": self.KIND, "name": self.name, "members": [m.to_data() for m in self.members]}

    @classmethod
    def from_data(cls, d: dict) -> "UnionType":
        return cls(members=tuple(type_from_data(m) for m in d["members"]), name=d.get("name", ""))


@_kind
@attrs.frozen(kw_only=True)
class ArrayType:
    """``T[]``, ``readonly T[]``, ``Array<T>``, ``ReadonlyArray<T>``: mostly short, up to sixteen."""

    KIND: ClassVar[str] = "array"
    element: "SpecType"
    readonly: bool = False
    name: str = ""

    def to_data(self) -> dict:
        return {"kind": self.KIND, "name": self.name, "element": self.element.to_data(),
                "readonly": self.readonly}

    @classmethod
    def from_data(cls, d: dict) -> "ArrayType":
        return cls(element=type_from_data(d["element"]), readonly=d.get("readonly", False),
                   name=d.get("name", ""))


@_kind
@attrs.frozen(kw_only=True)
class TemplateType:
    """A template literal type (`` `${number}px` ``): ``texts[0]``, hole 0, ``texts[1]``, ... ``texts[-1]``.

    A string binder whose values are the texts around each hole's value as
    ``String()`` writes it; holes are numbers, bigints, booleans, strings or literals.
    """

    KIND: ClassVar[str] = "template"
    texts: tuple[str, ...]
    holes: tuple["SpecType", ...]
    name: str = ""

    def __attrs_post_init__(self) -> None:
        assert len(self.texts) == len(self.holes) + 1, (self.texts, self.holes)

    def to_data(self) -> dict:
        return {"kind": self.KIND, "name": self.name, "texts": list(self.texts),
                "holes": [h.to_data() for h in self.holes]}

    @classmethod
    def from_data(cls, d: dict) -> "TemplateType":
        return cls(texts=tuple(d["texts"]), holes=tuple(type_from_data(h) for h in d["holes"]), name=d.get("name", ""))


@_kind
@attrs.frozen(kw_only=True)
class UnsupportedType:
    """A type outside what the rungs draw (a function, a class instance, a recursive type)."""

    KIND: ClassVar[str] = "unsupported"
    reason: str
    name: str = ""

    def to_data(self) -> dict:
        return {"kind": self.KIND, "name": self.name, "reason": self.reason}

    @classmethod
    def from_data(cls, d: dict) -> "UnsupportedType":
        return cls(reason=d.get("reason", ""), name=d.get("name", ""))


SpecType = Union[NumberType, BigIntType, BooleanType, StringType, LiteralType, LiteralUnionType,
                 NullableType, RecordType, TaggedUnionType, UnionType, ArrayType, TemplateType, UnsupportedType]

TYPE_KINDS = tuple(_KINDS)


def type_from_data(d: dict) -> SpecType:
    """Build a SpecType from its plain data; an unknown kind reads as unsupported, never as an error."""
    cls = _KINDS.get(d.get("kind"))
    if cls is None:
        return UnsupportedType(reason=f"unknown type kind {d.get('kind')!r}", name=d.get("name", ""))
    return cls.from_data(d)
