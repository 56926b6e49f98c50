"""Edges, biased draws and shrink candidates for each binder type.

Three questions per SpecType kind, answered by pure functions over Python
values (``eutaxy.spec.values``):

- ``edges(t, guide)``: the values every seed tries first (the range's ends,
  zero and one, NaN, the infinities and -0, the empty string, both booleans,
  every member of a union, records built from their fields' edges, arrays
  empty, of one edge, and of one element twice), distinct, and at most
  :data:`EDGES_MAX` for composite types so nesting does not multiply them.
  A union of literals keeps every member, however many.
- ``draw(t, ctx, guide)``: one random value, biased the way bugs are.
- ``shrink(t, value, guide)``: simpler candidates, simplest first.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Iterator, Optional, Sequence

import attrs

from eutaxy.spec import (ArrayType, BigIntType, BooleanType, LiteralType, LiteralUnionType,
                         NullableType, NumberType, RecordType, SpecType, StringType,
                         TaggedUnionType, TemplateType, UnionType, UnsupportedType)
from eutaxy.spec.values import MAX_SAFE_INTEGER, UNDEFINED, BigInt, decode, encode, is_number, js_string, key, number

from .randomness import Draws
from .steering import NO_GUIDE, Guide
from .values import utf16_length


#: Composite types keep at most this many edges, so nesting does not multiply them.
EDGES_MAX = 64
#: Arrays are mostly short: claims keyed on order or repeats break at a few elements.
ARRAY_LENGTH_MAX = 16
#: Strings are short texts; long ones find little a short one misses.
STRING_LENGTH_MAX = 8
#: The largest finite double, and the smallest positive one (a subnormal).
DOUBLE_MAX = 1.7976931348623157e308
DOUBLE_POSITIVE_MIN = 5e-324
#: How often an array element repeats an earlier one (claims keyed on distinct elements break on a repeat).
REPEAT_CHANCE = 0.25

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
DIGITS = "0123456789"
PUNCTUATION = " -_.,:;!?/@#'\""
#: Characters of more than one UTF-16 unit, or composed of several code points.
MULTI_UNIT = ("é", "ß", "€", "😀", "𝒳", "👍🏽", "e\u0301", "中")


class Undrawable(Exception):
    """A binder type no rung draws (the reader marked it unsupported)."""


@attrs.frozen(kw_only=True)
class DrawContext:
    draws: Draws
    max_array_length: int = ARRAY_LENGTH_MAX
    max_string_length: int = STRING_LENGTH_MAX
    #: Strings the real RegExp accepted, per pattern, handed out in turn.
    string_pool: Optional[Callable[[Guide], Optional[str]]] = None
    #: The string constants the claim mentions (``s.includes("@")``, ``s === "v1"``): strings are
    #: drawn from them and their characters some of the time.
    mentioned: tuple[str, ...] = ()
    #: Numbers near the constants the claim's code is written with (:func:`near_constants`): a
    #: number is drawn from them some of the time.
    near: tuple[float, ...] = ()


def _distinct(values: list, limit: Optional[int]) -> list:
    seen: set[str] = set()
    out = []
    for v in values:
        k = key(encode(v))
        if k in seen:
            continue
        seen.add(k)
        out.append(v)
        if limit is not None and len(out) >= limit:
            break
    return out


def _literal(value: Any) -> Any:
    return decode(value)


# --- edges ------------------------------------------------------------------------


def _number_edges(guide: Guide) -> list:
    values: list = []
    for bound, strict, step in ((guide.lo, guide.lo_strict, 1), (guide.hi, guide.hi_strict, -1)):
        if bound is not None and math.isfinite(bound):
            if strict and not guide.integer:
                # The first double past a strict bound (5e-324 past 0): claims break at the bound's edge.
                values.append(number(math.nextafter(float(bound), math.copysign(math.inf, step))))
            values.append(number(bound + step) if strict and float(bound).is_integer() else number(bound))
            if not strict:
                values.append(number(bound + step) if abs(bound) < MAX_SAFE_INTEGER else bound)
                if not guide.integer:
                    values.append(number(math.nextafter(float(bound), math.copysign(math.inf, step))))
    values += [0, 1, -1, -0.0, math.nan, math.inf, -math.inf]
    values += [v for v in guide.equals if is_number(v)]
    if not guide.integer:
        values += [0.5, -0.5]
    values += [MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER, DOUBLE_POSITIVE_MIN, DOUBLE_MAX, -DOUBLE_MAX]
    # The first integers a double no longer holds exactly beside their neighbours (n + 1 - 1 !== n there).
    values += [float(MAX_SAFE_INTEGER + 1), -float(MAX_SAFE_INTEGER + 1)]
    return values


def _bigint_edges(guide: Guide) -> list:
    ints = []
    for bound, strict, step in ((guide.lo, guide.lo_strict, 1), (guide.hi, guide.hi_strict, -1)):
        if bound is not None and isinstance(bound, int):
            ints.append(bound + step if strict else bound)
    ints += [0, 1, -1, 2**53, -(2**53), 2**64, -(2**64)]
    return [BigInt(v) for v in ints]


def _string_edges(guide: Guide) -> list:
    from .regex_walk import plainest

    values = [v for v in guide.equals if isinstance(v, str)]
    for pattern, flags in guide.patterns:
        walked = plainest(pattern, flags)
        if walked is not None:
            values.append(walked)
    return values + ["", "a", "A", "0", " ", "é", "😀"]


def edges(t: SpecType, guide: Guide = NO_GUIDE) -> list:
    """The edge values of ``t``, distinct, in the order they are walked."""
    if isinstance(t, NumberType):
        return _distinct(_number_edges(guide), None)
    if isinstance(t, BigIntType):
        return _distinct(_bigint_edges(guide), None)
    if isinstance(t, BooleanType):
        return [False, True]
    if isinstance(t, StringType):
        return _distinct(_string_edges(guide), None)
    if isinstance(t, LiteralType):
        return [_literal(t.value)]
    if isinstance(t, LiteralUnionType):
        return _distinct([_literal(v) for v in t.values], None)
    if isinstance(t, NullableType):
        nulls = ([None] if t.null else []) + ([UNDEFINED] if t.undefined else [])
        return _distinct(nulls + edges(t.inner, guide), EDGES_MAX)
    if isinstance(t, RecordType):
        return _record_edges(t, guide)
    if isinstance(t, TaggedUnionType):
        return _interleave([_record_edges(v.record, guide) for v in t.variants])
    if isinstance(t, UnionType):
        return _interleave([edges(m) for m in t.members])
    if isinstance(t, TemplateType):
        hole_edges = [edges(h) for h in t.holes]
        count = min(max((len(e) for e in hole_edges), default=1), EDGES_MAX)
        return _distinct([_fill(t, [e[k % len(e)] for e in hole_edges]) for k in range(count)], EDGES_MAX)
    if isinstance(t, ArrayType):
        element = edges(t.element, guide.elements)
        arrays = [()] + [(e,) for e in element] + ([(element[0], element[0])] if element else [])
        return _distinct(arrays, EDGES_MAX)
    raise Undrawable(getattr(t, "reason", "") or f"type {t.name!r} is not drawn")


def _record_edges(t: RecordType, guide: Guide = NO_GUIDE) -> list:
    """Records built from their fields' edges, walked in step (field ``i`` takes its ``k``-th edge)."""
    field_edges = [edges(f.type, guide.field(f.name)) for f in t.fields]
    if not t.fields:
        return [{}]
    count = min(max(len(e) for e in field_edges), EDGES_MAX)
    records = [{f.name: e[k % len(e)] for f, e in zip(t.fields, field_edges)} for k in range(count)]
    if any(f.optional for f in t.fields):
        records.insert(1, {f.name: e[0] for f, e in zip(t.fields, field_edges) if not f.optional})
    return _distinct(records, EDGES_MAX)


def _fill(t: TemplateType, values: list) -> str:
    """The template's texts around each hole's value as ``String()`` writes it."""
    out = t.texts[0]
    for value, text in zip(values, t.texts[1:]):
        out += js_string(value) + text
    return out


def _interleave(lists: list[list], limit: int = EDGES_MAX) -> list:
    out = []
    for k in range(max((len(x) for x in lists), default=0)):
        out.extend(x[k] for x in lists if k < len(x))
    return _distinct(out, limit)


# --- near the source's constants -------------------------------------------------

#: Composite binders keep at most this many values built near the constants.
NEAR_VALUES_MAX = 256
#: How often a number is drawn near a source constant rather than as the type says.
NEAR_CHANCE = 0.1


def near_constants(constants: Sequence[float]) -> tuple[float, ...]:
    """The numbers a claim false next to a constant of its code breaks at, constant by constant.

    For each constant ``c`` the reader found (``FREE_FROM = 250``, ``60 * SECOND``):
    ``c``, ``c ± 1``, ``c ± 0.5``, the doubles adjacent to ``c``, ``c / 2``, ``1.5 c``,
    ``10 c`` and ``c / 10``, each followed by its negation. Distinct and finite, in that
    order, so the constants the function itself is written with come first.
    """
    out: dict[str, Any] = {}
    for c in constants:
        if not is_number(c) or not math.isfinite(c) or c == 0:
            continue
        c = float(c)
        for v in (c, c + 1, c - 1, c + 0.5, c - 0.5, math.nextafter(c, math.inf), math.nextafter(c, -math.inf),
                  c / 2, c * 1.5, c * 10, c / 10):
            for signed in (v, -v):
                if math.isfinite(signed):
                    value = number(signed)
                    out.setdefault(key(encode(value)), value)
    return tuple(out.values())


def _near_admitted(guide: Guide, value: Any) -> bool:
    return guide.admits(value) and (not guide.integer or float(value).is_integer())


def near_values(t: SpecType, guide: Guide, near: Sequence[float]) -> list[Any]:
    """Values of ``t`` whose numbers are near the source's constants (empty when ``t`` holds no number).

    A number takes each near value its guide admits; a record takes them in its number
    fields side by side (its other fields at their edges); an array holds one of them; a
    nullable and a tagged union go through to what they hold.
    """
    if not near:
        return []
    if isinstance(t, NumberType):
        return [v for v in near if _near_admitted(guide, v)]
    if isinstance(t, NullableType):
        return near_values(t.inner, guide, near)
    if isinstance(t, RecordType):
        return _near_records(t, guide, near)
    if isinstance(t, TaggedUnionType):
        return _interleave([_near_records(v.record, guide, near) for v in t.variants], NEAR_VALUES_MAX)
    if isinstance(t, ArrayType):
        return [(v,) for v in near_values(t.element, guide.elements, near)[:NEAR_VALUES_MAX]]
    return []


def _near_records(t: RecordType, guide: Guide, near: Sequence[float]) -> list[Any]:
    parts = [near_values(f.type, guide.field(f.name), near) for f in t.fields]
    if not any(parts):
        return []
    fills = [p or edges(f.type, guide.field(f.name)) for f, p in zip(t.fields, parts, strict=True)]
    count = min(max(len(p) for p in parts), NEAR_VALUES_MAX)
    return [{f.name: e[k % len(e)] for f, e in zip(t.fields, fills, strict=True)} for k in range(count)]


def _draw_near(guide: Guide, d: Draws, near: Sequence[float]) -> Optional[Any]:
    """A near value the guide admits, or ``None`` after a few tries."""
    for _ in range(4):
        value = d.choice(near)
        if _near_admitted(guide, value):
            return value
    return None


def lengthy_kinds(t: SpecType) -> set[str]:
    """``"array"`` and ``"string"`` when ``t`` holds one anywhere (a template literal is not drawn by length)."""
    if isinstance(t, ArrayType):
        return {"array"} | lengthy_kinds(t.element)
    if isinstance(t, StringType):
        return {"string"}
    if isinstance(t, NullableType):
        return lengthy_kinds(t.inner)
    if isinstance(t, RecordType):
        return set().union(*(lengthy_kinds(f.type) for f in t.fields))
    if isinstance(t, TaggedUnionType):
        return set().union(*(lengthy_kinds(v.record) for v in t.variants))
    if isinstance(t, UnionType):
        return set().union(*(lengthy_kinds(m) for m in t.members))
    return set()


# --- cardinality ------------------------------------------------------------------

#: Above this a domain counts as unbounded for the early stop.
COUNTED_DOMAIN_MAX = 10**6


def cardinality(t: SpecType) -> Optional[int]:
    """The number of values of ``t`` when small and finite, else ``None``."""
    if isinstance(t, BooleanType):
        return 2
    if isinstance(t, LiteralType):
        return 1
    if isinstance(t, LiteralUnionType):
        return len(t.values)
    if isinstance(t, NullableType):
        inner = cardinality(t.inner)
        return None if inner is None else inner + int(t.null) + int(t.undefined)
    if isinstance(t, RecordType):
        total = 1
        for f in t.fields:
            c = cardinality(f.type)
            if c is None:
                return None
            total *= c + (1 if f.optional else 0)
            if total > COUNTED_DOMAIN_MAX:
                return None
        return total
    if isinstance(t, (TaggedUnionType, UnionType)):
        parts = [cardinality(v.record) for v in t.variants] if isinstance(t, TaggedUnionType) else [cardinality(m) for m in t.members]
        if any(p is None for p in parts):
            return None
        return sum(parts)
    return None


# --- enumeration ------------------------------------------------------------------

#: A domain of at most this many assignments is enumerated whole before any random
#: draw, unless the property's ``sample.maxEnumerate`` says otherwise.
MAX_ENUMERATE_DEFAULT = 4096


def _int_range(guide: Guide) -> Optional[tuple[int, int]]:
    """The integers an integral, two-sided guide admits, as ``(lo, hi)``; ``None`` when open."""
    lo_i, hi_i = guide.integral_ends
    if lo_i is None or hi_i is None:
        return None
    return int(lo_i), int(hi_i)


def enumerate_values(t: SpecType, guide: Guide = NO_GUIDE, limit: int = MAX_ENUMERATE_DEFAULT) -> Optional[list]:
    """Every value of ``t`` the guide admits, when there are at most ``limit``; else ``None``.

    Numbers count only when the guide makes them integral and bounds them on both
    sides (``-0`` is one of them when the range holds zero); a record is the product
    of its fields, a union the sum of its members.
    """
    if isinstance(t, BooleanType):
        return [False, True]
    if isinstance(t, LiteralType):
        return [_literal(t.value)]
    if isinstance(t, LiteralUnionType):
        values = _distinct([_literal(v) for v in t.values], None)
        return values if len(values) <= limit else None
    if isinstance(t, NumberType) and guide.integer or isinstance(t, BigIntType):
        bounds = _int_range(guide)
        if bounds is None:
            return None
        lo, hi = bounds
        if hi - lo + 1 > limit:
            return None
        if isinstance(t, BigIntType):
            return [BigInt(v) for v in range(lo, hi + 1)]
        values: list = [number(v) for v in range(lo, hi + 1)]
        if lo <= 0 <= hi and len(values) < limit:
            values.insert(values.index(0) + 1, -0.0)
        return values
    if isinstance(t, NullableType):
        inner = enumerate_values(t.inner, guide, limit)
        nulls = ([None] if t.null else []) + ([UNDEFINED] if t.undefined else [])
        if inner is None or len(inner) + len(nulls) > limit:
            return None
        return nulls + inner
    if isinstance(t, RecordType):
        records: list[dict] = [{}]
        for f in t.fields:
            values = enumerate_values(f.type, guide.field(f.name), limit)
            if values is None:
                return None
            options = values + ([_ABSENT] if f.optional else [])
            if len(records) * len(options) > limit:
                return None
            records = [{**r, f.name: v} if v is not _ABSENT else r for r in records for v in options]
        return records
    if isinstance(t, TemplateType):
        filled: list[list] = [[]]
        for hole in t.holes:
            values = enumerate_values(hole, NO_GUIDE, limit)
            if values is None or len(filled) * len(values) > limit:
                return None
            filled = [f + [v] for f in filled for v in values]
        return _distinct([_fill(t, f) for f in filled], None)
    if isinstance(t, (TaggedUnionType, UnionType)):
        members = [v.record for v in t.variants] if isinstance(t, TaggedUnionType) else list(t.members)
        out: list = []
        for member in members:
            values = enumerate_values(member, guide if isinstance(t, TaggedUnionType) else NO_GUIDE, limit - len(out))
            if values is None:
                return None
            out.extend(values)
        return _distinct(out, None)
    return None


_ABSENT = object()


def enumerate_assignments(types: list, guides: list, limit: int = MAX_ENUMERATE_DEFAULT) -> Optional[list[tuple]]:
    """Every assignment of the binders (the product of their enumerations), when at most ``limit``."""
    assignments: list[tuple] = [()]
    for t, g in zip(types, guides):
        values = enumerate_values(t, g, limit)
        if values is None or len(assignments) * len(values) > limit:
            return None
        assignments = [a + (v,) for a in assignments for v in values]
    return assignments


# --- random draws -----------------------------------------------------------------


def _small_int(d: Draws) -> int:
    return d.between(-16, 16)


def _landmarks() -> tuple[list[int], list[float]]:
    """Numbers bugs cluster at: round numbers, halves, powers of two and ten with their
    neighbours, and the magnitudes where representations change (2^31, 2^53, 1e-6,
    the subnormals). Integers first, then the fractions, each with its negation."""
    ints: set[int] = set()
    for k in range(0, 65):
        ints.update((2**k - 1, 2**k, 2**k + 1))
    for k in range(0, 22):
        ints.update((10**k - 1, 10**k, 10**k + 1, 5 * 10**k, 25 * 10**k))
    ints.update((2**53 + 2, 2**53 + 4, 2**63 - 1, 2**64 - 1))
    fractions: set[float] = {0.5, 0.25, 0.125, 0.75, 0.1, 0.2, 0.3, 1 / 3, 2 / 3, 0.01, 0.005, 0.015, 0.995, 1.005, 2.5, 1.5}
    for k in range(1, 21):
        fractions.update((10.0**-k, 5 * 10.0**-k, 10.0**-k * 0.999999, 10.0**-k * 1.000001))
    fractions.update((1e-6, 9.999999e-7, 1.000001e-6, 5e-7, 2.0**-52, 2.0**-1074, 2.0**-1022, 2.0**-1023,
                      2.2250738585072014e-308, 4.9e-324, 1e-300, 0.1 + 0.2, 1e15 + 0.5, 2.0**52 + 0.5))
    ints_sorted = sorted(ints)
    return ints_sorted + [-v for v in ints_sorted], sorted(fractions) + [-v for v in sorted(fractions)]


LANDMARK_INTS, LANDMARK_FRACTIONS = _landmarks()


def _landmark(guide: Guide, d: Draws) -> Optional[float | int]:
    """A landmark the guide admits (integral when it asks so), or ``None`` after a few tries."""
    for _ in range(4):
        pool = LANDMARK_INTS if guide.integer or d.chance(0.6) else LANDMARK_FRACTIONS
        value = d.choice(pool)
        if isinstance(value, int) and not guide.integer and d.chance(0.2):
            value = value + d.choice((0.5, -0.5))
        if guide.admits(value):
            return number(value)
    return None


def _draw_in_range(guide: Guide, d: Draws) -> float | int:
    lo, hi = guide.lo, guide.hi
    lo_i, hi_i = guide.integral_ends
    if not guide.integer and d.chance(0.25):
        base_lo = lo if lo is not None and math.isfinite(lo) else (hi - 1000 if hi is not None else -1000)
        base_hi = hi if hi is not None and math.isfinite(hi) else base_lo + 1000
        if d.chance(0.4):
            # Just inside an end, at any magnitude: 0 < x breaks at 1e-7 as often as at 0.5.
            span = base_hi - base_lo
            offset = 10.0 ** d.between(-320, max(-320, int(math.floor(math.log10(span))) if span > 0 else -320)) * (1 + d.random())
            value = base_lo + offset if d.chance(0.5) else base_hi - offset
            if guide.admits(value):
                return number(value)
        return number(base_lo + (base_hi - base_lo) * d.random())
    if d.chance(0.15):
        landmark = _landmark(guide, d)
        if landmark is not None:
            return landmark
    r = d.random()
    if lo_i is not None and hi_i is not None and lo_i <= hi_i:
        if r < 0.3:
            return number(min(hi_i, lo_i + d.below(4)))
        if r < 0.5:
            return number(max(lo_i, hi_i - d.below(4)))
        return number(d.between(int(lo_i), int(hi_i)))
    if lo_i is not None:
        return number(lo_i + (d.below(17) if r < 0.7 else d.below(1001) if r < 0.95 else d.below(MAX_SAFE_INTEGER - min(abs(lo_i), MAX_SAFE_INTEGER - 1))))
    if hi_i is not None:
        return number(hi_i - (d.below(17) if r < 0.7 else d.below(1001) if r < 0.95 else d.below(MAX_SAFE_INTEGER - min(abs(hi_i), MAX_SAFE_INTEGER - 1))))
    return _small_int(d)


def _draw_number(guide: Guide, d: Draws) -> float | int:
    if guide.bounded and d.chance(0.85):
        return _draw_in_range(guide, d)
    if guide.equals and d.chance(0.2):
        values = [v for v in guide.equals if is_number(v)]
        if values:
            return d.choice(values)
    if d.chance(0.2):
        landmark = _landmark(guide, d)
        if landmark is not None:
            return landmark
    r = d.random()
    if r < 0.45:
        return _small_int(d)
    if r < 0.60:
        return d.between(-1000, 1000)
    if r < 0.68:
        return number(d.between(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER))
    if r < 0.72:
        return d.choice((MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER, DOUBLE_MAX, -DOUBLE_MAX))
    if guide.integer and r < 0.97:
        return _small_int(d)
    if r < 0.85:
        # Fractions: a small integer plus a binary or decimal fraction.
        whole = _small_int(d)
        fraction = d.below(1 << 10) / (1 << 10) if d.chance(0.5) else round(d.random(), d.between(1, 3))
        return number(whole + fraction if whole >= 0 else whole - fraction)
    if r < 0.92:
        # Magnitudes: the very small and the very large.
        exponent = d.between(-320, 308)
        mantissa = 1 + d.random()
        value = mantissa * 10.0 ** exponent if exponent > -300 else DOUBLE_POSITIVE_MIN * d.between(1, 1000)
        return number(-value if d.chance(0.5) else value)
    return d.choice((math.nan, math.inf, -math.inf, -0.0))


def _draw_bigint(guide: Guide, d: Draws) -> BigInt:
    lo = guide.lo if isinstance(guide.lo, int) else None
    hi = guide.hi if isinstance(guide.hi, int) else None
    if (lo is not None or hi is not None) and d.chance(0.85):
        lo_v = None if lo is None else lo + int(guide.lo_strict)
        hi_v = None if hi is None else hi - int(guide.hi_strict)
        if lo_v is not None and hi_v is not None and lo_v <= hi_v:
            return BigInt(d.between(lo_v, hi_v))
        if lo_v is not None:
            return BigInt(lo_v + d.below(17 if d.chance(0.7) else 2**70))
        if hi_v is not None:
            return BigInt(hi_v - d.below(17 if d.chance(0.7) else 2**70))
    r = d.random()
    if r < 0.5:
        return BigInt(_small_int(d))
    if r < 0.7:
        return BigInt(d.between(-1000, 1000))
    if r < 0.9:
        magnitude = 2**53 + d.below(2**70)
        return BigInt(-magnitude if d.chance(0.5) else magnitude)
    return BigInt(d.choice((2**63 - 1, -(2**63), 2**64, -(2**64))))


def draw_char(d: Draws) -> str:
    r = d.random()
    if r < 0.5:
        return d.choice(LETTERS)
    if r < 0.7:
        return d.choice(DIGITS)
    if r < 0.85:
        return d.choice(PUNCTUATION)
    return d.choice(MULTI_UNIT)


def _draw_string(guide: Guide, ctx: DrawContext) -> str:
    lengths = guide.lengths
    if lengths.bounded and ctx.draws.chance(0.5):
        low = max(0, int(lengths.lo + (1 if lengths.lo_strict else 0))) if lengths.lo is not None else 0
        high = int(lengths.hi - (1 if lengths.hi_strict else 0)) if lengths.hi is not None else low + ctx.max_string_length
        if low <= high:
            d = ctx.draws
            target = d.between(low, min(high, low + 64))
            out = ""
            while utf16_length(out) < target:
                ch = draw_char(d)
                if utf16_length(out + ch) > target:
                    ch = d.choice(LETTERS)
                out += ch
            return out
    d = ctx.draws
    if guide.patterns and ctx.string_pool is not None and d.chance(0.75):
        walked = ctx.string_pool(guide)
        if walked is not None:
            return walked
    if guide.equals and d.chance(0.2):
        strings = [v for v in guide.equals if isinstance(v, str)]
        if strings:
            return d.choice(strings)
    mentioned = ctx.mentioned
    if mentioned and d.chance(0.25):
        # Pieces of what the claim mentions, whole or a character at a time, between plain ones.
        out = ""
        for _ in range(d.between(1, 3)):
            piece = d.choice(mentioned)
            out += piece if d.chance(0.5) else (d.choice(piece) if piece else "") + draw_char(d) * d.below(2)
        return out
    r = d.random()
    limit = ctx.max_string_length
    length = d.between(0, min(4, limit)) if r < 0.6 else d.between(0, limit)
    out = ""
    while utf16_length(out) < length:
        ch = draw_char(d)
        if utf16_length(out + ch) > limit:
            break
        out += ch
    return out


def _draw_length(ctx: DrawContext, guide: Guide = NO_GUIDE) -> int:
    d, limit = ctx.draws, ctx.max_array_length
    if guide.bounded and d.chance(0.85):
        low = max(0, int(guide.lo + (1 if guide.lo_strict else 0))) if guide.lo is not None else 0
        high = int(guide.hi - (1 if guide.hi_strict else 0)) if guide.hi is not None else max(low, limit)
        if low <= high:
            return d.between(low, min(high, max(low, limit)))
    r = d.random()
    if r < 0.1 or limit == 0:
        return 0
    if r < 0.7:
        return d.between(1, min(4, limit))
    return d.between(min(5, limit), limit)


def draw(t: SpecType, ctx: DrawContext, guide: Guide = NO_GUIDE) -> Any:
    """One random value of ``t``."""
    d = ctx.draws
    if isinstance(t, NumberType):
        # The chance is asked only when there are constants, so code without any draws as before.
        if ctx.near and d.chance(NEAR_CHANCE):
            value = _draw_near(guide, d, ctx.near)
            if value is not None:
                return value
        return _draw_number(guide, d)
    if isinstance(t, BigIntType):
        return _draw_bigint(guide, d)
    if isinstance(t, BooleanType):
        return d.chance(0.5)
    if isinstance(t, StringType):
        return _draw_string(guide, ctx)
    if isinstance(t, LiteralType):
        return _literal(t.value)
    if isinstance(t, LiteralUnionType):
        if guide.equals and d.chance(0.3):
            return d.choice(guide.equals)
        return _literal(d.choice(t.values))
    if isinstance(t, NullableType):
        if d.chance(0.15):
            nulls = ([None] if t.null else []) + ([UNDEFINED] if t.undefined else [])
            return d.choice(nulls)
        return draw(t.inner, ctx, guide)
    if isinstance(t, RecordType):
        return _draw_record(t, ctx, guide)
    if isinstance(t, TaggedUnionType):
        return _draw_record(d.choice(t.variants).record, ctx, guide)
    if isinstance(t, UnionType):
        return draw(d.choice(t.members), ctx)
    if isinstance(t, TemplateType):
        return _fill(t, [draw(h, ctx) for h in t.holes])
    if isinstance(t, ArrayType):
        items: list = []
        for i in range(_draw_length(ctx, guide.lengths)):
            if i > 0 and d.chance(REPEAT_CHANCE):
                items.append(d.choice(items))
            else:
                items.append(draw(t.element, ctx, guide.elements))
        return tuple(items)
    raise Undrawable(getattr(t, "reason", "") or f"type {t.name!r} is not drawn")


def _draw_record(t: RecordType, ctx: DrawContext, guide: Guide = NO_GUIDE) -> dict:
    out = {}
    for f in t.fields:
        field_guide = guide.field(f.name)
        if f.optional and field_guide is NO_GUIDE and ctx.draws.chance(0.25):
            continue
        out[f.name] = draw(f.type, ctx, field_guide)
    return out


# --- shrinking --------------------------------------------------------------------


def _toward(value: int, target: int) -> Iterator[int]:
    """Integers from ``target`` toward ``value``: target, then halving the distance left, then one step."""
    distance = value - target
    yield target
    k = 1
    while True:
        step = int(distance / 2**k)
        if step == 0:
            break
        yield value - step
        k += 1


def _number_target(guide: Guide) -> float | int:
    if guide.admits(0):
        return 0
    ends = [b for b in (guide.lo, guide.hi) if b is not None and math.isfinite(b)]
    if not ends:
        return 0
    end = min(ends, key=abs)
    if end == guide.lo and guide.lo_strict:
        return number(math.floor(end) + 1)
    if end == guide.hi and guide.hi_strict:
        return number(math.ceil(end) - 1)
    return number(end)


def _shrink_number(value: float | int, guide: Guide) -> Iterator:
    target = _number_target(guide)
    yield target
    if isinstance(value, float) and not math.isfinite(value):
        yield from (1, MAX_SAFE_INTEGER)
        return
    if isinstance(value, float) and value == 0:
        return
    if value < 0 and guide.admits(-value):
        yield number(-value)
    if isinstance(value, float):
        truncated = number(math.trunc(value))
        yield truncated
        for digits in (0, 1, 2, 3):
            yield number(round(value, digits))
        if abs(value) > MAX_SAFE_INTEGER:
            yield number(math.copysign(MAX_SAFE_INTEGER, value))
            # Past the safe integers, the powers of two up to it: a claim breaking at 2^53 shrinks there.
            for k in range(53, min(1024, int(math.log2(abs(value))) + 1)):
                yield math.copysign(2.0 ** k, value)
        return
    for v in _rounder(value, int(target)):
        if guide.admits(v):
            yield number(v)
    for v in _toward(value, int(target)):
        if v != target:
            yield number(v)


def _rounder(value: int, target: int) -> list[int]:
    """Rounder integers nearer ``target`` than ``value``, nearest first: ``value`` divided by ten
    while it divides, its last digits (``value`` mod 10^k, the sign kept), and the small
    multiples of its unit (the largest power of ten dividing it): from 57500, 5750, 575, 500,
    7500, 100, 200, ... So a claim false at every amount ending in 500 shrinks to 500, which
    halving the distance to zero never lands on.
    """
    magnitude, sign = abs(value), (1 if value > 0 else -1)
    if magnitude < 10:
        return []
    found: set[int] = set()
    v = magnitude
    while v % 10 == 0:
        v //= 10
        found.add(v)
    power = 10
    while power < magnitude:
        found.add(magnitude % power)
        power *= 10
    unit = 1
    while magnitude % (unit * 10) == 0:
        unit *= 10
    found.update(m * unit for m in range(1, 10))
    found.update(m * unit * 10 for m in range(1, 10))
    distance = abs(value - target)
    candidates = {sign * v for v in found if 0 < v < magnitude}
    return sorted((c for c in candidates if abs(c - target) < distance and c != target),
                  key=lambda c: (abs(c - target), c < target))


def _shrink_string(value: str) -> Iterator[str]:
    yield ""
    n = len(value)
    if n > 1:
        yield value[: n // 2]
        yield value[n // 2:]
    for i in range(min(n, 16)):
        yield value[:i] + value[i + 1:]
    plain = "".join(c if c in LETTERS or c in DIGITS else "a" for c in value)
    if plain != value:
        yield plain
    for i in range(min(n, 16)):
        if value[i] != "a":
            yield value[:i] + "a" + value[i + 1:]
    lower = value.lower()
    if lower != value:
        yield lower


def shrink(t: SpecType, value: Any, guide: Guide = NO_GUIDE) -> Iterator[Any]:
    """Simpler candidates for ``value``, simplest first (the caller skips any already seen)."""
    if isinstance(t, NumberType) and is_number(value):
        yield from _shrink_number(value, guide)
    elif isinstance(t, BigIntType) and isinstance(value, BigInt):
        target = 0
        if guide.lo is not None and isinstance(guide.lo, int) and guide.lo > 0:
            target = guide.lo + int(guide.lo_strict)
        elif guide.hi is not None and isinstance(guide.hi, int) and guide.hi < 0:
            target = guide.hi - int(guide.hi_strict)
        for v in _toward(value.value, target):
            yield BigInt(v)
    elif isinstance(t, BooleanType) and value is True:
        yield False
    elif isinstance(t, StringType) and isinstance(value, str):
        yield from _shrink_string(value)
    elif isinstance(t, LiteralUnionType):
        keyed = [key(v) for v in t.values]
        current = key(encode(value))
        for v, k in zip(t.values, keyed):
            if k == current:
                break
            yield _literal(v)
    elif isinstance(t, NullableType):
        if value is not None and value is not UNDEFINED:
            if t.null:
                yield None
            if t.undefined:
                yield UNDEFINED
            yield from shrink(t.inner, value, guide)
        elif value is UNDEFINED and t.null:
            yield None
    elif isinstance(t, RecordType) and isinstance(value, dict):
        yield from _shrink_record(t, value, guide)
    elif isinstance(t, TaggedUnionType) and isinstance(value, dict):
        tag = value.get(t.tag)
        for variant in t.variants:
            if key(encode(variant.tag)) == key(encode(tag)):
                yield from _shrink_record(variant.record, value, guide)
                break
            yield edges(variant.record)[0]
    elif isinstance(t, UnionType):
        for member in t.members:
            if fits(member, value):
                yield from shrink(member, value)
                break
            yield edges(member)[0]
    elif isinstance(t, ArrayType) and isinstance(value, tuple):
        yield from _shrink_array(t, value, guide)
    elif isinstance(t, TemplateType) and isinstance(value, str):
        yield from edges(t)[:8]


def _shrink_record(t: RecordType, value: dict, guide: Guide = NO_GUIDE) -> Iterator[dict]:
    for f in t.fields:
        if f.name not in value:
            continue
        if f.optional:
            yield {k: v for k, v in value.items() if k != f.name}
        for candidate in shrink(f.type, value[f.name], guide.field(f.name)):
            yield {**value, f.name: candidate}


def _shrink_array(t: ArrayType, value: tuple, guide: Guide = NO_GUIDE) -> Iterator[tuple]:
    """Drop elements before shrinking them; shrink every copy of a value at once."""
    n = len(value)
    if n == 0:
        return
    yield ()
    if n > 1:
        yield value[: n // 2]
        yield value[n // 2:]
    for i in range(min(n, 32)):
        yield value[:i] + value[i + 1:]
    distinct: dict[str, Any] = {}
    for v in value:
        distinct.setdefault(key(encode(v)), v)
    for k, v in distinct.items():
        for candidate in shrink(t.element, v, guide.elements):
            yield tuple(candidate if key(encode(x)) == k else x for x in value)


def fits(t: SpecType, value: Any) -> bool:
    """Whether ``value`` is a value of ``t`` (used to tell a plain union's member)."""
    if isinstance(t, NumberType):
        return is_number(value)
    if isinstance(t, BigIntType):
        return isinstance(value, BigInt)
    if isinstance(t, BooleanType):
        return isinstance(value, bool)
    if isinstance(t, StringType):
        return isinstance(value, str)
    if isinstance(t, LiteralType):
        return key(encode(value)) == key(t.value)
    if isinstance(t, LiteralUnionType):
        return key(encode(value)) in {key(v) for v in t.values}
    if isinstance(t, NullableType):
        return value is None or value is UNDEFINED or fits(t.inner, value)
    if isinstance(t, RecordType):
        return isinstance(value, dict) and all(f.name in value or f.optional for f in t.fields)
    if isinstance(t, TaggedUnionType):
        return isinstance(value, dict) and any(fits(v.record, value) for v in t.variants)
    if isinstance(t, UnionType):
        return any(fits(m, value) for m in t.members)
    if isinstance(t, ArrayType):
        return isinstance(value, tuple)
    if isinstance(t, TemplateType):
        return isinstance(value, str) and value.startswith(t.texts[0]) and value.endswith(t.texts[-1])
    return False


def is_drawable(t: SpecType) -> Optional[str]:
    """``None`` when every part of ``t`` is drawn, else why not."""
    if isinstance(t, UnsupportedType):
        return f"{t.name or 'a type'}: {t.reason}"
    children: list = []
    if isinstance(t, NullableType):
        children = [t.inner]
    elif isinstance(t, RecordType):
        children = [f.type for f in t.fields]
    elif isinstance(t, TaggedUnionType):
        children = [v.record for v in t.variants]
    elif isinstance(t, UnionType):
        children = list(t.members)
    elif isinstance(t, ArrayType):
        children = [t.element]
    elif isinstance(t, TemplateType):
        children = list(t.holes)
    for child in children:
        why = is_drawable(child)
        if why:
            return why
    return None
