"""The reader: spec files read through the pinned compiler into SpecIR.

The fixture (fixtures/reader) declares a type alias after its first use, an
instantiated generic, inline object types, a type imported from another file,
nullable and tagged unions, and all four array spellings.
"""

import pytest

from eutaxy.prover.reader import ReadError
from eutaxy.spec import (ArrayType, BigIntType, Binary, BinderRef, BooleanType, Call, Field, ForallProperty,
                         LiteralType, LiteralUnionType, NullableType, NumberType, Outside, RecordType,
                         RegexTest, StringType, TaggedUnionType, TotalProperty, UnionType, Variant,
                         outside_nodes)

from prover_support import prop

MONEY = RecordType(name="Money", fields=(Field(name="cents", type=NumberType()),
                                         Field(name="currency", type=LiteralUnionType(values=("EUR", "USD"), name='"EUR" | "USD"'))))
SHAPE = TaggedUnionType(name="Shape", tag="kind", variants=(
    Variant(tag="circle", record=RecordType(name='{ kind: "circle"; r: number; }', fields=(
        Field(name="kind", type=LiteralType(value="circle", name='"circle"')), Field(name="r", type=NumberType())))),
    Variant(tag="square", record=RecordType(name='{ kind: "square"; side: number; }', fields=(
        Field(name="kind", type=LiteralType(value="square", name='"square"')), Field(name="side", type=NumberType()))))))


@pytest.fixture(scope="module")
def reads(fixture_reads):
    """The fixture, the tested fixture, a missing file and a mismatched spec, read in one process (conftest)."""
    return [fixture_reads[0], fixture_reads[2], fixture_reads[3], fixture_reads[4]]


@pytest.fixture(scope="module")
def module(reads):
    return reads[0]


def _types(module, name):
    return {b.name: b.type for b in prop(module, name).binders}


def test_one_property_per_export(module):
    """Each forall/total export is a property, in source order; other exports are listed as skipped."""
    assert ["primitivesHold", "aliasesHold", "unionsHold", "arraysHold", "blockBody", "unsupportedTypes",
            "terminatesAlways"] == [p.name for p in module.properties]
    assert [("notAProperty", 36), ("helper", 38)] == [(s.name, s.line) for s in module.skipped]
    assert () == module.diagnostics
    assert module.module.endswith("fixtures/reader/domain.ts")


def test_primitive_binders(module):
    """number, boolean, string and bigint binders, named as the function names its parameters."""
    assert {"n": NumberType(), "flag": BooleanType(), "text": StringType(), "big": BigIntType()} == _types(module, "primitivesHold")


def test_aliases_generics_inline_and_imported_types(module):
    """A later alias, an instantiated generic, an inline object type and an imported interface resolve as the compiler does."""
    types = _types(module, "aliasesHold")
    assert LiteralUnionType(name="State", values=("open", "closed", "void")) == types["state"]
    assert RecordType(name="Box<bigint>", fields=(
        Field(name="value", type=BigIntType()),
        Field(name="label", optional=True, type=NullableType(name="string | undefined", inner=StringType(), null=False, undefined=True)))) == types["boxed"]
    assert RecordType(name="{ x: boolean; y: string | null; }", fields=(
        Field(name="x", type=BooleanType()),
        Field(name="y", type=NullableType(name="string | null", inner=StringType())))) == types["inline"]
    assert MONEY == types["money"]


def test_unions(module):
    """Tagged unions, nullable records, plain unions and optional parameters."""
    types = _types(module, "unionsHold")
    assert SHAPE == types["shape"]
    assert NullableType(name="Money | undefined", inner=MONEY, null=False, undefined=True) == types["maybe"]
    assert UnionType(name="string | number", members=(StringType(), NumberType())) == types["mixed"]
    assert NullableType(name="number | undefined", inner=NumberType(), null=False, undefined=True) == types["opt"]
    assert prop(module, "unionsHold").binders[3].optional
    assert {"maxStringLength": 4} == prop(module, "unionsHold").sample


def test_all_four_array_spellings(module):
    """T[], readonly T[], Array<T> and ReadonlyArray<T>."""
    types = _types(module, "arraysHold")
    assert ArrayType(name="number[]", element=NumberType()) == types["a"]
    assert ArrayType(name="readonly string[]", element=StringType(), readonly=True) == types["b"]
    assert ArrayType(name="Shape[]", element=SHAPE) == types["c"]
    assert ArrayType(name="readonly boolean[]", element=BooleanType(), readonly=True) == types["d"]


def test_unsupported_types_are_marked(module):
    """Functions, library classes and index signatures are read as unsupported, with the reason."""
    types = _types(module, "unsupportedTypes")
    assert [("() => void", "functions are not drawn"), ("Date", "Date from the standard library is not drawn"),
            ("Record<string, number>", "index signatures are not drawn")] == [(t.name, t.reason) for t in types.values()]


def test_claim_trees(module):
    """Comparisons, &&, builtins and module calls become trees over binders by position."""
    p = prop(module, "primitivesHold")
    n, flag = BinderRef(index=0, name="n"), BinderRef(index=1, name="flag")
    assert Binary(op="&&", left=Binary(op="&&", left=Binary(op="&&",
        left=Binary(op="<=", left=_lit(0), right=n), right=Binary(op="<", left=n, right=_lit(10))),
        right=Call(callee="Number.isInteger", target="builtin", args=(n,))), right=flag) == p.when
    assert [] == outside_nodes(p.ensures)
    call = p.ensures.left.left.left
    assert Call(callee="primitives", target="module", args=tuple(b for b in _refs(p)), ref="domain.ts:6:17") == call
    assert "domain.ts:6:17" == p.ref, "the property's function and the call in its claim are one declaration"
    assert _lit({"$": "bigint", "v": "-1"}) == p.ensures.left.right.right


def test_regex_and_conditional(module):
    """A regex literal's test() keeps pattern and flags; the conditional operator keeps its branches."""
    ensures = prop(module, "aliasesHold").ensures
    inner = ensures.test.left
    assert RegexTest(pattern="^[a-z]+$", flags="i", argument=inner.otherwise.argument) == inner.otherwise
    assert "conditional" == ensures.KIND


def test_outside_the_subset_marked_with_construct_and_line(module):
    """Template literals, optional chains and statement blocks are marked outside, with construct and line."""
    assert [("TemplateExpression", 15, "`${shape.kind}`"), ("OptionalChain", 15, "maybe?.cents")] == [
        (o.construct, o.line, o.text) for o in outside_nodes(prop(module, "unionsHold").ensures)]
    assert Outside(construct="Block", line=26, text="{ const n = a.length; return n >= 0; }") == prop(module, "blockBody").ensures
    assert "binary" == prop(module, "arraysHold").ensures.KIND  # a single-return block is read through


def test_total_and_renamed_import(module):
    """total, imported under another name, is still a total property over the function's binders."""
    p = prop(module, "terminatesAlways")
    assert isinstance(p, TotalProperty) and "total" == p.function
    assert isinstance(prop(module, "primitivesHold"), ForallProperty)


def test_missing_file_is_a_read_error(reads):
    """A spec file that is not there comes back as a read error, not an empty module."""
    read = reads[1]
    assert isinstance(read, ReadError) and "no such file" == read.message


def test_mismatched_spec_carries_the_compilers_diagnostic(reads):
    """A spec whose claim does not match its function is read with the compiler's error beside it."""
    read = reads[2]
    assert 1 == len(read.diagnostics) and "TS2322" in read.diagnostics[0]
    assert ["p"] == [p.name for p in read.properties]


def test_the_users_tsconfig_is_honoured(reads):
    """A type reached through the project's tsconfig paths alias resolves as the user's compiler resolves it."""
    read = reads[3]
    assert () == read.diagnostics
    assert RecordType(name="Cents", fields=(Field(name="amount", type=NumberType()),
                                            Field(name="currency", type=LiteralType(value="EUR", name='"EUR"')))) == read.properties[0].binders[0].type


def _lit(value):
    from eutaxy.spec import Literal

    return Literal(value=value)


def _refs(p):
    return [BinderRef(index=i, name=b.name) for i, b in enumerate(p.binders)]
