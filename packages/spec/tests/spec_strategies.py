"""Hypothesis strategies for every SpecIR data type (named apart from other packages' strategies modules)."""

from hypothesis import strategies as st

from eutaxy.spec import (ArrayType, BigIntType, Binary, Binder, BinderRef, BooleanType, Call, Conditional, Every, Field,
                         FieldRead, ForallProperty, FunctionDef, FunctionRef, GlobalWrite, IndexRead, Let, Literal, LiteralType,
                         LiteralUnionType, Local, RecordLiteral,
                         NullableType, NumberType, Outside, RecordType, RegexTest, SpecModule, StringType,
                         TaggedUnionType, TotalProperty, Unary, UnionType, UnsupportedType, Variant)

names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=6)
encoded_literals = st.one_of(
    st.text(max_size=4), st.integers(-10, 10), st.booleans(), st.none(),
    st.sampled_from([{"$": "number", "v": "NaN"}, {"$": "number", "v": "-0"}, {"$": "bigint", "v": "-3"},
                     {"$": "undefined"}]))

leaf_types = st.one_of(
    st.builds(NumberType), st.builds(BigIntType), st.builds(BooleanType), st.builds(StringType, name=names),
    st.builds(LiteralType, value=encoded_literals, name=names),
    st.builds(LiteralUnionType, values=st.lists(st.text(max_size=3), min_size=2, max_size=5, unique=True).map(tuple),
              name=names),
    st.builds(UnsupportedType, reason=st.text(max_size=10), name=names))


def _records(children):
    return st.builds(RecordType, name=names, fields=st.lists(
        st.builds(Field, name=names, type=children, optional=st.booleans()), max_size=3,
        unique_by=lambda f: f.name).map(tuple))


def _tagged(children):
    def build(tags, bodies):
        variants = tuple(Variant(tag=tag, record=RecordType(name=f"V{i}", fields=(
            Field(name="kind", type=LiteralType(value=tag)),) + body.fields))
            for i, (tag, body) in enumerate(zip(tags, bodies)))
        return TaggedUnionType(tag="kind", variants=variants, name="T")
    tags = st.lists(st.text(alphabet="xyz", min_size=1, max_size=2), min_size=2, max_size=3, unique=True)
    return tags.flatmap(lambda ts: st.lists(_records(children), min_size=len(ts), max_size=len(ts)).map(
        lambda bodies: build(ts, [RecordType(name=b.name, fields=tuple(f for f in b.fields if f.name != "kind"))
                                  for b in bodies])))


spec_types = st.recursive(leaf_types, lambda children: st.one_of(
    st.builds(NullableType, inner=children, null=st.booleans(), undefined=st.booleans(), name=names),
    _records(children), _tagged(children),
    st.builds(UnionType, members=st.lists(children, min_size=2, max_size=3).map(tuple), name=names),
    st.builds(ArrayType, element=children, readonly=st.booleans(), name=names)), max_leaves=8)

binder_refs = st.builds(BinderRef, index=st.integers(0, 3), name=names)
refs = st.sampled_from(["", "domain.ts:3:17", "lib/bank.ts:1:10"])
leaf_exprs = st.one_of(st.builds(Literal, value=encoded_literals), binder_refs, st.builds(FunctionRef, name=names, ref=refs),
                       st.builds(Local, name=names),
                       st.builds(Outside, construct=names, line=st.integers(1, 99), text=st.text(max_size=8)))
exprs = st.recursive(leaf_exprs, lambda children: st.one_of(
    st.builds(Unary, op=st.sampled_from(["!", "-", "+"]), operand=children),
    st.builds(Binary, op=st.sampled_from(["&&", "||", "<", "===", "+"]), left=children, right=children),
    st.builds(Conditional, test=children, then=children, otherwise=children),
    st.builds(FieldRead, object=children, name=names),
    st.builds(IndexRead, object=children, index=children),
    st.builds(Call, callee=names, target=st.sampled_from(["module", "builtin"]),
              args=st.lists(children, max_size=3).map(tuple), ref=refs),
    st.builds(RegexTest, pattern=st.text(max_size=6), flags=st.sampled_from(["", "i", "u"]), argument=children),
    st.builds(Every, array=children, param=names, body=children)),
    max_leaves=10)

binders = st.builds(Binder, name=names, type=spec_types, optional=st.booleans())
properties = st.one_of(
    st.builds(ForallProperty, name=names, function=names, binders=st.lists(binders, max_size=3).map(tuple),
              ensures=exprs, when=st.none() | exprs,
              sample=st.none() | st.fixed_dictionaries({"maxArrayLength": st.integers(0, 16)}),
              line=st.integers(1, 99), ref=refs),
    st.builds(TotalProperty, name=names, function=names, binders=st.lists(binders, max_size=3).map(tuple),
              line=st.integers(1, 99), ref=refs))
function_defs = st.builds(FunctionDef, name=names, params=st.lists(binders, max_size=3).map(tuple),
                          returns=spec_types, line=st.integers(1, 99), id=refs, file=st.sampled_from(["", "domain.ts"]),
                          body=st.one_of(exprs, st.builds(
                              Let, name=names, value=exprs, body=st.one_of(st.builds(Local, name=names), st.builds(
                                  RecordLiteral, fields=st.lists(st.tuples(names, exprs), max_size=2).map(tuple),
                                  type=spec_types)))))
spec_modules = st.builds(SpecModule, spec=names, module=st.none() | names,
                         properties=st.lists(properties, max_size=3).map(tuple),
                         functions=st.lists(function_defs, max_size=2).map(tuple),
                         diagnostics=st.lists(st.text(max_size=10), max_size=2).map(tuple),
                         global_writes=st.lists(st.builds(GlobalWrite, file=names, line=st.integers(1, 99), target=names,
                                                          text=st.text(max_size=8)), max_size=2).map(tuple))
