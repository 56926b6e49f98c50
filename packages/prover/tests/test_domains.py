"""Edges, draws and shrink candidates per binder type."""

import math

from eutaxy.prover import domains
from eutaxy.prover.randomness import Draws
from eutaxy.prover.steering import Guide
from eutaxy.prover.values import utf16_length
from eutaxy.spec.values import UNDEFINED, BigInt, encode, key
from eutaxy.spec import (ArrayType, BigIntType, BooleanType, Field, LiteralType, LiteralUnionType,
                         NullableType, NumberType, RecordType, StringType, TaggedUnionType, UnionType,
                         UnsupportedType, Variant)


def _keys(values):
    return [key(encode(v)) for v in values]


def _ctx(name="p", **kw):
    return domains.DrawContext(draws=Draws.for_property("seed", name), **kw)


def test_number_edges():
    """Doubles: zero and one, -0, NaN, the infinities, the safe-integer and double ends, then 2^53 (the first
    integer past the safe ones), in that order."""
    found = _keys(domains.edges(NumberType()))
    expected = _keys([0, 1, -1, -0.0, math.nan, math.inf, -math.inf, 0.5, -0.5, 2**53 - 1, -(2**53 - 1),
                      5e-324, 1.7976931348623157e308, -1.7976931348623157e308, 2.0**53, -2.0**53])
    assert expected == found


def test_number_edges_take_the_guides_ends_first():
    """A steered range puts its ends (and one step in) first; an integer guide drops the fractions."""
    found = domains.edges(NumberType(), Guide(lo=0, hi=10, hi_strict=True, integer=True))
    assert [0, 1, 9] == found[:3]
    assert 0.5 not in found


def test_small_and_composite_edges():
    """Booleans, strings, literals, nullables, records, tagged unions and arrays have the edges the seeds list."""
    assert [False, True] == domains.edges(BooleanType())
    assert "" == domains.edges(StringType())[0] and "😀" in domains.edges(StringType())
    assert [None, 0] == domains.edges(NullableType(inner=NumberType()))[:2]
    record = RecordType(fields=(Field(name="a", type=BooleanType()), Field(name="b", type=LiteralUnionType(values=("x", "y", "z")))))
    assert [{"a": False, "b": "x"}, {"a": True, "b": "y"}, {"a": False, "b": "z"}] == domains.edges(record)
    tagged = TaggedUnionType(tag="kind", variants=(
        Variant(tag="a", record=RecordType(fields=(Field(name="kind", type=LiteralType(value="a")),))),
        Variant(tag="b", record=RecordType(fields=(Field(name="kind", type=LiteralType(value="b")),)))))
    assert [{"kind": "a"}, {"kind": "b"}] == domains.edges(tagged)
    arrays = domains.edges(ArrayType(element=BooleanType()))
    assert [(), (False,), (True,), (False, False)] == arrays
    assert [BigInt(0), BigInt(1)] == domains.edges(BigIntType())[:2]


def test_edges_are_capped_for_composites_but_not_literal_unions():
    """Records and arrays keep at most 64 edges; a union of a hundred literals keeps all hundred."""
    many = LiteralUnionType(values=tuple(f"v{i}" for i in range(100)))
    assert 100 == len(domains.edges(many))
    assert 64 == len(domains.edges(RecordType(fields=(Field(name="x", type=many),))))
    assert 64 == len(domains.edges(ArrayType(element=many)))


def test_draws_are_deterministic():
    """The same stream draws the same values."""
    t = ArrayType(element=RecordType(fields=(Field(name="n", type=NumberType()), Field(name="s", type=StringType()))))
    one = [domains.draw(t, _ctx()) for _ in range(50)]
    two = [domains.draw(t, _ctx()) for _ in range(50)]
    assert _keys(one) == _keys(two)


def test_number_draws_are_biased_the_way_bugs_are():
    """Many draws are small integers; fractions, -0, NaN and the infinities all appear, and so do
    the landmarks (powers of two and ten and their neighbours, 2^31, past 2^53, around 1e-6)."""
    ctx = _ctx("numbers")
    values = [domains.draw(NumberType(), ctx) for _ in range(2000)]
    small = sum(1 for v in values if isinstance(v, int) and abs(v) <= 16)
    assert 0.3 < small / len(values) < 0.6
    finite = [abs(v) for v in values if math.isfinite(v)]
    assert any(v in (2**31 - 1, 2**31, 2**31 + 1) for v in finite)
    assert any(2**53 < v < 2**65 for v in finite), "integers past what a double holds exactly"
    assert any(1e-7 <= v <= 1e-5 for v in finite)
    assert any(v in (99, 100, 101, 999, 1000, 1001) for v in finite)
    assert any(isinstance(v, float) and math.isfinite(v) and not v.is_integer() for v in values)
    specials = {key(encode(v)) for v in values if isinstance(v, float) and (not math.isfinite(v) or v == 0)}
    assert _keys([-0.0, math.nan, math.inf, -math.inf]) == sorted(specials, key=_keys([-0.0, math.nan, math.inf, -math.inf]).index)


def test_steered_draws_land_in_range():
    """With 0 <= n <= 10000 most draws land inside, integral when the guide says so."""
    ctx = _ctx("range")
    guide = Guide(lo=0, hi=10000, integer=True)
    values = [domains.draw(NumberType(), ctx, guide) for _ in range(1000)]
    inside = [v for v in values if isinstance(v, int) and 0 <= v <= 10000]
    assert len(inside) > 800
    assert any(3000 <= v < 7000 for v in inside)


def test_fractional_ranges_are_probed_near_their_ends_at_every_magnitude():
    """0 < x < 1 over doubles draws values below 1e-6 (and the edges start just past 0)."""
    ctx = _ctx("fraction")
    guide = Guide(lo=0, hi=1, lo_strict=True, hi_strict=True)
    values = [domains.draw(NumberType(), ctx, guide) for _ in range(1000)]
    assert sum(1 for v in values if 0 < v < 1e-6) > 10
    assert 5e-324 in domains.edges(NumberType(), guide)


def test_small_domains_are_enumerated():
    """An integral range, a union of literals and records of them enumerate whole; larger or open ones do not."""
    rng = Guide(lo=0, hi=200, integer=True)
    values = domains.enumerate_values(NumberType(), rng)
    assert 202 == len(values) and 0 == values[0] and -0.0 == values[1] and 200 == values[-1]
    assert domains.enumerate_values(NumberType(), Guide(lo=0, hi=200)) is None, "doubles are not enumerated"
    assert domains.enumerate_values(NumberType(), Guide(lo=0, hi=10**6, integer=True)) is None
    record = RecordType(fields=(Field(name="major", type=NumberType()), Field(name="on", type=BooleanType())))
    guide = Guide(fields=(("major", Guide(lo=0, hi=2, integer=True)),))
    assert 8 == len(domains.enumerate_values(record, guide))
    assert 16 == len(domains.enumerate_assignments([record, BooleanType()], [guide, Guide()]))
    assert domains.enumerate_assignments([record, BooleanType()], [guide, Guide()], limit=10) is None


def test_arrays_are_short_and_repeat_a_quarter_of_the_time():
    """Arrays stay within sixteen (or the sample's limit), and about a quarter of later elements repeat one."""
    ctx = _ctx("arrays")
    arrays = [domains.draw(ArrayType(element=NumberType()), ctx) for _ in range(1000)]
    assert max(len(a) for a in arrays) == 16
    later = [(a, i) for a in arrays for i in range(1, len(a))]
    repeats = sum(1 for a, i in later if key(encode(a[i])) in _keys(a[:i]))
    assert 0.2 < repeats / len(later) < 0.4
    limited = [domains.draw(ArrayType(element=NumberType()), _ctx("arrays", max_array_length=3)) for _ in range(200)]
    assert max(len(a) for a in limited) <= 3


def test_strings_are_short_with_multi_unit_characters():
    """Strings stay within the limit in UTF-16 units and include characters of two units."""
    ctx = _ctx("strings", max_string_length=6)
    strings = [domains.draw(StringType(), ctx) for _ in range(500)]
    assert max(utf16_length(s) for s in strings) <= 6
    assert any(any(ord(c) > 0xFFFF for c in s) for s in strings)


def test_nullable_union_and_record_draws():
    """Nullable draws null among the values; unions draw every member; optional fields are sometimes absent."""
    ctx = _ctx("mixed")
    nullable = [domains.draw(NullableType(inner=NumberType(), undefined=True), ctx) for _ in range(300)]
    assert None in nullable and UNDEFINED in nullable
    union = [domains.draw(UnionType(members=(NumberType(), StringType())), ctx) for _ in range(100)]
    assert {int, str} <= {type(v) for v in union}
    record = RecordType(fields=(Field(name="a", type=NumberType(), optional=True),))
    assert {0, 1} == {len(domains.draw(record, ctx)) for _ in range(100)}


def test_number_shrinks_toward_zero_then_halves():
    """An integer shrinks to zero first, then to rounder integers (tenths, powers of ten), then halving the
    distance; a steered one toward its nearest end."""
    assert [0, 1, 10, 100, 500, 750, 875] == list(domains.shrink(NumberType(), 1000))[:7]
    assert 10 == next(domains.shrink(NumberType(), 50, Guide(lo=10)))
    assert [0] == list(domains.shrink(NumberType(), -0.0))
    assert [0, 1] == list(domains.shrink(NumberType(), math.nan))[:2]
    assert 2 in list(domains.shrink(NumberType(), 2.75))


def test_integers_shrink_to_rounder_smaller_multiples():
    """From 57500 the candidates after zero are the small multiples of its unit (100, ..., 500), its last
    digits (500, 7500) and its tenths (5750, 575), nearest zero first: a claim false at every amount
    ending in 500 shrinks to 500, where halving the distance stops at 57500 or 2500."""
    candidates = list(domains.shrink(NumberType(), 57500))
    fails = [c for c in candidates if c % 1000 == 500]
    assert [0, 100, 200, 300, 400, 500] == candidates[:6]
    assert 500 == fails[0]
    assert {575, 5750, 7500} <= set(candidates[:30])
    negative = list(domains.shrink(NumberType(), -90000))
    assert [0, 90000, -9, -90, -900] == negative[:5]
    assert all(c <= 0 for c in negative[2:20])
    steered = list(domains.shrink(NumberType(), 57500, Guide(lo=1000)))
    assert 1000 == steered[0] and all(c >= 1000 for c in steered)


def test_structured_shrinks():
    """Strings get shorter and plainer, booleans false, literals earlier, nullables null."""
    assert ["", "a", "b"] == list(domains.shrink(StringType(), "ab"))[:3]
    assert [False] == list(domains.shrink(BooleanType(), True))
    assert ["x", "y"] == list(domains.shrink(LiteralUnionType(values=("x", "y", "z")), "z"))
    assert None is next(domains.shrink(NullableType(inner=NumberType()), 5))


def test_arrays_drop_before_shrinking_and_shrink_every_copy():
    """Dropping elements comes first; then each distinct value is shrunk in all its copies at once."""
    candidates = list(domains.shrink(ArrayType(element=NumberType()), (5, 7, 5)))
    assert [(), (5,), (7, 5), (7, 5), (5, 5), (5, 7)] == candidates[:6]
    assert (0, 7, 0) in candidates
    assert (0, 7, 5) not in candidates


def test_unsupported_types():
    """An unsupported type, at any depth, is not drawn and says why."""
    t = ArrayType(element=RecordType(fields=(Field(name="f", type=UnsupportedType(reason="functions are not drawn", name="() => void")),)))
    assert "() => void: functions are not drawn" == domains.is_drawable(t)
    assert None is domains.is_drawable(NumberType())


def test_cardinality():
    """Small finite domains are counted, so a rung can stop once it has seen them all."""
    assert 2 * 3 == domains.cardinality(RecordType(fields=(Field(name="a", type=BooleanType()), Field(name="b", type=LiteralUnionType(values=(1, 2, 3))))))
    assert 3 == domains.cardinality(NullableType(inner=BooleanType()))
    assert None is domains.cardinality(NumberType())
