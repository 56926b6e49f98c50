"""to_json writes every value one way: exact for JSON data, fixed rules for the rest."""

from __future__ import annotations

import datetime as dt
import decimal
import enum
import math
import uuid

import attrs
import pytest

from eutaxy.core.canonical import canonical_key, format_float, to_json


def test_sorted_keys_no_spaces():
    """Keys are sorted and no whitespace is written."""
    assert '{"a":[1,2],"b":{"c":null,"d":true}}' == to_json({"b": {"d": True, "c": None}, "a": [1, 2]})


@pytest.mark.parametrize(
    "number, text",
    [
        (2**53 + 1, "9007199254740993"),
        (-(2**80), "-1208925819614629174706176"),
        (0, "0"),
    ],
)
def test_bigints_are_their_digits(number, text):
    """Ints of any size are exact decimal digits, so distinct bigints never collide."""
    assert text == to_json(number)
    assert to_json(2**53) != to_json(2**53 + 1)


@pytest.mark.parametrize(
    "number, text",
    [
        (1.0, "1"),
        (-0.0, "0"),
        (0.1, "0.1"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1.5e-7, "1.5e-7"),
        (1e-6, "0.000001"),
        (123.456, "123.456"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (-2.5, "-2.5"),
        (2.0**60, "1152921504606847000"),
    ],
)
def test_floats_as_ecmascript_writes_them(number, text):
    """Floats follow Number.prototype.toString, so Python and JavaScript agree."""
    assert text == to_json(number)
    assert text == format_float(number) or number == 0


def test_special_floats_are_strings():
    """NaN and the infinities, which JSON cannot hold, are fixed strings."""
    assert '["NaN","Infinity","-Infinity"]' == to_json([math.nan, math.inf, -math.inf])


def test_int_and_integral_float_are_one_key():
    """1 and 1.0 are one number in JavaScript, so they are one key; True is not."""
    assert canonical_key(1) == canonical_key(1.0)
    assert canonical_key(True) != canonical_key(1)
    assert canonical_key("1") != canonical_key(1)


def test_datetimes_iso():
    """Aware datetimes in UTC with Z and milliseconds; naive ones without a zone."""
    zone = dt.timezone(dt.timedelta(hours=2))
    assert '"2026-01-01T00:00:00.000Z"' == to_json(dt.datetime(2026, 1, 1, 2, 0, tzinfo=zone))
    assert '"2026-01-01T00:00:00.123456"' == to_json(dt.datetime(2026, 1, 1, 0, 0, 0, 123456))
    assert '"0005-01-02T03:04:05.000"' == to_json(dt.datetime(5, 1, 2, 3, 4, 5))
    assert '"2026-01-01"' == to_json(dt.date(2026, 1, 1))


def test_sets_tuples_bytes():
    """Sets are sorted arrays, tuples arrays, bytes base64."""
    assert "[-2,1,10]" == to_json({10, -2, 1})
    assert '["a","b"]' == to_json(frozenset({"b", "a"}))
    assert "[1,[2,3]]" == to_json((1, (2, 3)))
    assert '"AAH/"' == to_json(b"\x00\x01\xff")
    assert '["1","a",2]' == to_json({2, "a", "1"})  # a mixed set sorts by the elements' text


def test_non_string_keys_are_stringified():
    """A key that is not a string is written as its own canonical text."""
    assert '{"1":"int","[1,2]":"tuple","a":"str"}' == to_json({(1, 2): "tuple", 1: "int", "a": "str"})


def test_attrs_enum_and_other_values():
    """attrs instances by their fields, enums by value, Decimal and UUID as text, others by type name."""

    @attrs.frozen
    class Point:
        y: int
        x: int

    class Colour(enum.Enum):
        RED = "red"

    assert '{"x":2,"y":1}' == to_json(Point(y=1, x=2))
    assert '"red"' == to_json(Colour.RED)
    assert '"1.50"' == to_json(decimal.Decimal("1.50"))
    assert '"00000000-0000-0000-0000-000000000001"' == to_json(uuid.UUID(int=1))
    assert '"<object>"' == to_json(object())


def test_cycles_are_nested_and_shared_values_are_not():
    """A container inside itself is "<nested>"; the same list twice side by side is written twice."""
    loop: list = [1]
    loop.append(loop)
    assert '[1,"<nested>"]' == to_json(loop)
    shared = [1]
    assert "[[1],[1]]" == to_json([shared, shared])
    mapping: dict = {}
    mapping["self"] = mapping
    assert '{"self":"<nested>"}' == to_json(mapping)


def test_strings_escape_controls_and_lone_surrogates():
    """Non-ASCII stays as is; controls and lone surrogates are escaped, so the text encodes as UTF-8."""
    assert '"é\\n\\u0001"' == to_json("é\n\x01")
    text = to_json("\ud800")
    assert '"\\ud800"' == text
    text.encode("utf-8")


def test_keys_sort_in_utf16_order():
    """Object keys sort by UTF-16 code units, as JavaScript sorts strings."""
    assert '{"🎲":1,"\uff01":2}' == to_json({"\uff01": 2, "🎲": 1})
