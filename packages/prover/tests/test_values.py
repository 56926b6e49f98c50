"""The value encoding shared with the Node side, and the one Python spelling of a number."""

import math

import pytest

from eutaxy.prover.values import (MAX_SAFE_INTEGER, UNDEFINED, BigInt, decode, encode, key, number, show,
                                  utf16_length)

CASES = [
    (0, 0), (-0.0, {"$": "number", "v": "-0"}), (math.nan, {"$": "number", "v": "NaN"}),
    (math.inf, {"$": "number", "v": "Infinity"}), (-math.inf, {"$": "number", "v": "-Infinity"}),
    (0.5, 0.5), (BigInt(2**70), {"$": "bigint", "v": str(2**70)}), (UNDEFINED, {"$": "undefined"}),
    (None, None), (True, True), ("😀", "😀"), ((1, (2,)), [1, [2]]),
    ({"$": 1, "a": UNDEFINED}, {"$": "object", "v": {"$": 1, "a": {"$": "undefined"}}}),
]


@pytest.mark.parametrize("value,encoded", CASES, ids=[repr(c[0]) for c in CASES])
def test_encode_decode(value, encoded):
    """Each value encodes as documented and decodes back to itself (NaN to NaN)."""
    assert encoded == encode(value)
    back = decode(encoded)
    assert key(encode(back)) == key(encoded)


def test_numbers_have_one_spelling():
    """An integral safe double is an int; -0, fractions and unsafe magnitudes stay floats."""
    assert (3, int) == (number(3.0), type(number(3.0)))
    assert math.copysign(1, number(-0.0)) < 0
    assert isinstance(number(2.0**60), float)
    assert MAX_SAFE_INTEGER == number(float(MAX_SAFE_INTEGER))


def test_key_tells_minus_zero_from_zero():
    """Distinctness follows Object.is: -0 and 0 are two inputs, NaN is one."""
    assert key(encode(-0.0)) != key(encode(0))
    assert key(encode(math.nan)) == key(encode(float("nan")))
    assert key(encode(3.0)) == key(encode(3))


def test_show_and_length():
    """Text reports spell values as JavaScript does; lengths count UTF-16 units."""
    assert "[-0, NaN, 1n, undefined, null, \"a\"]" == show((-0.0, math.nan, BigInt(1), UNDEFINED, None, "a"))
    assert "{ a: 1 }" == show({"a": 1})
    assert 3 == utf16_length("a😀")


def test_encode_refuses_foreign_values():
    """Something no JavaScript value corresponds to is an error, not a guess."""
    with pytest.raises(TypeError, match="cannot encode set"):
        encode({1})
