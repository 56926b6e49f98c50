"""SpecIR binder types round-trip through plain data, and unknown kinds read as unsupported."""

import json

import pytest

from eutaxy.spec import (TYPE_KINDS, ArrayType, BigIntType, BooleanType, Field, LiteralType,
                         LiteralUnionType, NullableType, NumberType, RecordType, StringType,
                         TaggedUnionType, TemplateType, UnionType, UnsupportedType, Variant, type_from_data)

CIRCLE = RecordType(name="Circle", fields=(Field(name="kind", type=LiteralType(value="circle")),
                                           Field(name="r", type=NumberType())))
SQUARE = RecordType(name="Square", fields=(Field(name="kind", type=LiteralType(value="square")),
                                           Field(name="side", type=NumberType(), optional=True)))

EXAMPLES = [
    NumberType(),
    BigIntType(),
    BooleanType(),
    StringType(name="Sku"),
    LiteralType(value={"$": "bigint", "v": "3"}, name="3n"),
    LiteralUnionType(values=("open", "closed"), name="State"),
    NullableType(inner=StringType(), null=True, undefined=True, name="string | null | undefined"),
    CIRCLE,
    TaggedUnionType(tag="kind", variants=(Variant(tag="circle", record=CIRCLE),
                                          Variant(tag="square", record=SQUARE)), name="Shape"),
    UnionType(members=(NumberType(), StringType()), name="number | string"),
    ArrayType(element=NumberType(), readonly=True, name="readonly number[]"),
    TemplateType(texts=("v", "px"), holes=(NumberType(),), name="`v${number}px`"),
    UnsupportedType(reason="functions are not drawn", name="() => void"),
]


@pytest.mark.parametrize("spec_type", EXAMPLES, ids=lambda t: t.KIND)
def test_round_trip(spec_type):
    """to_data is JSON, and from_data of it gives back an equal type."""
    data = spec_type.to_data()
    assert data == json.loads(json.dumps(data))
    assert spec_type == type_from_data(data)
    assert data["kind"] == spec_type.KIND


def test_every_kind_has_an_example():
    """The examples above cover every registered kind, so a new kind needs a round-trip case."""
    assert set(TYPE_KINDS) == {t.KIND for t in EXAMPLES}


def test_unknown_kind_reads_as_unsupported():
    """A kind a later reader adds is read as unsupported, never as an error (consumers keep a default branch)."""
    read = type_from_data({"kind": "tuple", "name": "[number, string]"})
    assert UnsupportedType(reason="unknown type kind 'tuple'", name="[number, string]") == read
