"""Hypothesis strategies for drawable binder types and the values of the value encoding."""

from hypothesis import strategies as st

from eutaxy.spec import (ArrayType, BigIntType, BooleanType, Field, LiteralType, LiteralUnionType, NullableType,
                         NumberType, RecordType, StringType, TaggedUnionType, UnionType, Variant)

names = st.text(alphabet="abcdefgh", min_size=1, max_size=4)

leaf_types = st.one_of(
    st.builds(NumberType), st.builds(BigIntType), st.builds(BooleanType), st.builds(StringType),
    st.builds(LiteralType, value=st.one_of(st.text(max_size=3), st.integers(-5, 5), st.booleans())),
    st.builds(LiteralUnionType, values=st.lists(st.text(max_size=3), min_size=2, max_size=120, unique=True).map(tuple)))


def _record(children):
    return st.builds(RecordType, fields=st.lists(st.builds(Field, name=names, type=children, optional=st.booleans()),
                                                 max_size=3, unique_by=lambda f: f.name).map(tuple))


def _tagged(children):
    def build(bodies):
        return TaggedUnionType(tag="kind", variants=tuple(
            Variant(tag=f"t{i}", record=RecordType(fields=(Field(name="kind", type=LiteralType(value=f"t{i}")),)
                                                   + tuple(f for f in body.fields if f.name != "kind")))
            for i, body in enumerate(bodies)))
    return st.lists(_record(children), min_size=2, max_size=3).map(build)


drawable_types = st.recursive(leaf_types, lambda children: st.one_of(
    st.builds(NullableType, inner=children, null=st.booleans(), undefined=st.booleans()).filter(lambda t: t.null or t.undefined),
    _record(children), _tagged(children),
    st.builds(UnionType, members=st.lists(children, min_size=2, max_size=3).map(tuple)),
    st.builds(ArrayType, element=children, readonly=st.booleans())), max_leaves=6)
