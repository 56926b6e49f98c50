"""The spec ladder's value encoding: JavaScript values as JSON, and in Python.

This module owns the encoding; ``js/values.mjs`` is the same rule in JavaScript, and both
are held to ``value_vectors.json`` (``tests/test_values.py``, ``js/test/values.test.mjs``).
The encoding is JSON for plain values, and a tagged object for what JSON cannot say::

    {"$": "bigint", "v": "-12"}   {"$": "number", "v": "NaN" | "Infinity" | "-Infinity" | "-0"}
    {"$": "undefined"}            {"$": "object", "v": {...}}   (a record whose own keys include "$")

A record holding a ``"$"`` key travels wrapped, so no user data is read as a tag.

Python holds a decoded value as plain data: ``int``/``float`` for a number (an integral
double within the safe range is an ``int``), :class:`BigInt` for a bigint, ``str`` for a
string, ``None`` for null, :data:`UNDEFINED`, ``tuple`` for an array and ``dict`` for a
record. :func:`show` writes such a value as JavaScript source would (for reports and
verdict details), :func:`js_string` as ``String(value)`` does.
"""

from __future__ import annotations

import decimal
import json
import math
import re
from typing import Any

import attrs

__all__ = ["MAX_SAFE_INTEGER", "UNDEFINED", "BigInt", "Undefined", "decode", "encode", "is_number", "js_string", "key",
           "number", "show"]

#: Integers a double holds exactly (``Number.MAX_SAFE_INTEGER``); an integral number beyond it stays a float.
MAX_SAFE_INTEGER = 2**53 - 1

#: A UTF-16 surrogate standing alone in a Python string (a lone one in the JavaScript string).
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

_SPECIAL_NUMBERS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "-0": -0.0}


@attrs.frozen
class BigInt:
    """A JavaScript bigint."""

    value: int


@attrs.frozen
class Undefined:
    """JavaScript's ``undefined`` (``None`` is ``null``)."""

    def __repr__(self) -> str:
        return "undefined"


UNDEFINED = Undefined()


def number(x: float | int) -> float | int:
    """The one Python spelling of a JavaScript number: integral and safe is ``int``, else ``float``."""
    if isinstance(x, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(x, int):
        return x if abs(x) <= MAX_SAFE_INTEGER else float(x)
    if math.isfinite(x) and x.is_integer() and abs(x) <= MAX_SAFE_INTEGER and not (x == 0 and math.copysign(1, x) < 0):
        return int(x)
    return x


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def encode(value: Any) -> Any:
    """A Python value (as :func:`decode` gives) -> its JSON-able encoding."""
    if type(value) is int:  # the common case first (a bool's type is bool, not int)
        return value if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER else float(value)
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, BigInt):
        return {"$": "bigint", "v": str(value.value)}
    if isinstance(value, Undefined):
        return {"$": "undefined"}
    if isinstance(value, int):
        return value if abs(value) <= MAX_SAFE_INTEGER else float(value)
    if isinstance(value, float):
        if math.isnan(value):
            return {"$": "number", "v": "NaN"}
        if math.isinf(value):
            return {"$": "number", "v": "Infinity" if value > 0 else "-Infinity"}
        if value == 0 and math.copysign(1, value) < 0:
            return {"$": "number", "v": "-0"}
        if value.is_integer() and abs(value) <= MAX_SAFE_INTEGER:
            return int(value)
        return value
    if isinstance(value, (tuple, list)):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        out = {k: encode(v) for k, v in value.items()}
        return {"$": "object", "v": out} if "$" in out else out
    raise TypeError(f"cannot encode {type(value).__name__} as a JavaScript value")


def decode(data: Any) -> Any:
    """The JSON-able encoding -> a Python value (arrays become tuples)."""
    if data is None or isinstance(data, (bool, str)):
        return data
    if isinstance(data, (int, float)):
        return number(data)
    if isinstance(data, list):
        return tuple(decode(v) for v in data)
    if isinstance(data, dict):
        if "$" in data:
            tag = data["$"]
            if tag == "bigint":
                return BigInt(int(data["v"]))
            if tag == "number":
                return _SPECIAL_NUMBERS[data["v"]]
            if tag == "undefined":
                return UNDEFINED
            if tag == "object":
                return {k: decode(v) for k, v in data["v"].items()}
            raise ValueError(f"unknown value tag {tag!r}")
        return {k: decode(v) for k, v in data.items()}
    raise TypeError(f"cannot decode {type(data).__name__}")


#: ``json.dumps(..., sort_keys=True, separators=(",", ":"), ensure_ascii=False)``, built once.
_KEY_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def key(encoded: Any) -> str:
    """A distinctness key over encoded values: equal inputs, equal keys (-0 and 0 differ, as Object.is says)."""
    return _KEY_ENCODER.encode(encoded)


def show(value: Any) -> str:
    """A value (as :func:`decode` gives) as JavaScript source would write it: ``12n``, ``-0``, ``{ a: 1 }``."""
    if value is None or isinstance(value, (bool, Undefined)):
        return js_string(value)  # a literal writes these as String() does
    if isinstance(value, BigInt):
        return f"{value.value}n"
    if isinstance(value, float):
        # As a literal would be written: -0 shows its sign, which String() drops.
        return "-0" if value == 0 and math.copysign(1, value) < 0 else js_string(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        # As JSON.stringify quotes it: a lone surrogate is escaped, so the text can be printed.
        return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False))
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(show(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k}: {show(v)}" for k, v in value.items()) + " }" if value else "{}"
    return repr(value)


def js_string(value: Any) -> str:
    """``String(value)`` as JavaScript writes it, for a number, bigint, boolean, string, null or undefined."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Undefined):
        return "undefined"
    if isinstance(value, BigInt):
        return str(value.value)
    x = float(value)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    if x < 0:
        return "-" + js_string(-x)
    # Number::toString: the shortest round-trip digits (Python's repr has the same), laid out by n.
    _, digits_tuple, exponent = decimal.Decimal(repr(x)).normalize().as_tuple()
    assert isinstance(exponent, int), exponent  # a finite x: never NaN's "n" or "N", nor infinity's "F"
    digits = "".join(map(str, digits_tuple))
    k = len(digits)
    n = k + exponent
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{mantissa}e{'+' if e > 0 else '-'}{abs(e)}"
