"""The effect log's value encoding: how a value a binding handled is written into the log.

This module owns the rule; the Cloudflare runtime's ``runtime/values.mjs`` is the same rule
in JavaScript, and both are held to ``vectors/values.json`` (``tests/test_values.py`` here,
``runtime/test/values.test.mjs`` there), so a changed row fails both suites.

The encoding is JSON for what JSON says, read as ``JSON.stringify`` reads it (undefined and a
non-finite number are null, a record field holding undefined is left out, -0 is 0), and a
tagged object for the rest, in the tag style of the spec ladder's encoding
(:mod:`eutaxy.spec.values`)::

    {"$": "bytes", "v": "<standard base64>"}   {"$": "date", "v": "2026-01-01T00:00:00.000Z" | null}
    {"$": "map", "v": [[key, value], ...]}      {"$": "set", "v": [value, ...]}
    {"$": "bigint", "v": "-12"}                 {"$": "error", "v": {"name": ..., "message": ...}}
    {"$": "object", "v": {...}}                 (a record whose own keys include "$")

A record holding a ``"$"`` key travels wrapped, so no user data reads as a tag.

In Python, :func:`encode` takes ``None``, booleans, strings, ints, floats, ``bytes`` (and
``bytearray``, ``memoryview``), timezone-aware ``datetime``\\ s (to the millisecond, as a
JavaScript ``Date`` holds them), :class:`~eutaxy.spec.values.BigInt`,
:data:`~eutaxy.spec.values.UNDEFINED`, lists, tuples, dicts with string keys, sets (written
in the order of their encoded items' canonical text, since a Python set has none),
:class:`JsMap`, :class:`JsSet` and :class:`JsError`. :func:`decode` gives those back: a map,
a set and an error as the small records below, a date as a UTC ``datetime``.
"""

from __future__ import annotations

import base64
import datetime as _dt
import math
from typing import Any

import attrs

from eutaxy.core.canonical import string_order, to_json
from eutaxy.spec.values import BigInt, Undefined

__all__ = ["DEPTH_MAX", "JsError", "JsMap", "JsSet", "decode", "encode", "plain_data", "text_or_bytes"]

#: Deeper than this is not data a Worker hands a binding (runtime/values.mjs's DEPTH_MAX).
DEPTH_MAX = 64


@attrs.frozen
class JsMap:
    """A JavaScript ``Map``: its entries in insertion order (keys need not be strings)."""

    pairs: tuple[tuple[Any, Any], ...]


@attrs.frozen
class JsSet:
    """A JavaScript ``Set``: its items in insertion order."""

    items: tuple[Any, ...]


@attrs.frozen
class JsError:
    """A JavaScript ``Error`` as the log holds it: its name and message."""

    name: str
    message: str


class NotPlainData(TypeError):
    """The value is not plain data; the message says where and what it is."""


def plain_data(value: Any) -> bool:
    """Whether :func:`encode` can write ``value`` (the rule ``plainData`` is in the runtime)."""
    try:
        encode(value)
    except NotPlainData:
        return False
    return True


def encode(value: Any) -> Any:
    """A value -> its JSON-able form in the log; :class:`NotPlainData` names what is not plain."""
    return _encode(value, "value", ())


def _bytes(data: bytes) -> dict[str, str]:
    return {"$": "bytes", "v": base64.b64encode(data).decode("ascii")}


def _date(value: _dt.datetime, where: str) -> str:
    if value.tzinfo is None or value.utcoffset() is None:
        raise NotPlainData(f"{where} is a naive datetime, which names no instant; give it a timezone")
    utc = value.astimezone(_dt.timezone.utc)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def _encode(value: Any, where: str, open_containers: tuple[int, ...]) -> Any:
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return (0 if value == 0 else value) if math.isfinite(value) else None
    if isinstance(value, Undefined):
        return None
    if isinstance(value, BigInt):
        return {"$": "bigint", "v": str(value.value)}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _bytes(bytes(value))
    if isinstance(value, _dt.datetime):
        return {"$": "date", "v": _date(value, where)}
    if isinstance(value, JsError):
        return {"$": "error", "v": {"name": value.name, "message": value.message}}
    if id(value) in open_containers:
        raise NotPlainData(f"{where} is a cycle")
    if len(open_containers) >= DEPTH_MAX:
        raise NotPlainData(f"{where} is nested more than {DEPTH_MAX} levels deep")
    inside = open_containers + (id(value),)
    if isinstance(value, (list, tuple)):
        return [_encode(item, f"{where}[{index}]", inside) for index, item in enumerate(value)]
    if isinstance(value, JsMap):
        return {"$": "map", "v": [[_encode(k, f"{where} key {i}", inside), _encode(v, f"{where}.get(key {i})", inside)]
                                  for i, (k, v) in enumerate(value.pairs)]}
    if isinstance(value, JsSet):
        return {"$": "set", "v": [_encode(item, f"{where} item {i}", inside) for i, item in enumerate(value.items)]}
    if isinstance(value, (set, frozenset)):
        items = [_encode(item, f"{where} item", inside) for item in value]
        return {"$": "set", "v": sorted(items, key=_order_text)}
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise NotPlainData(f"{where}: key {key!r} is not a string; a record's keys are strings (a JsMap takes others)")
            if isinstance(item, Undefined):
                continue
            out[key] = _encode(item, f"{where}.{key}", inside)
        return {"$": "object", "v": out} if "$" in out else out
    raise NotPlainData(f"{where} is a {type(value).__name__}, which is not plain data")


def _order_text(encoded: Any) -> Any:
    return string_order(to_json(encoded))


def decode(data: Any) -> Any:
    """The log's form -> a Python value (lists stay lists; see the module's note)."""
    if data is None or isinstance(data, (bool, str, int, float)):
        return data
    if isinstance(data, list):
        return [decode(item) for item in data]
    if isinstance(data, dict):
        if "$" not in data:
            return {key: decode(item) for key, item in data.items()}
        tag = data["$"]
        inner: Any = data.get("v")
        if tag == "bytes":
            return base64.b64decode(inner, validate=True)
        if tag == "date":
            return None if inner is None else _dt.datetime.fromisoformat(inner.replace("Z", "+00:00"))
        if tag == "map":
            return JsMap(tuple((decode(k), decode(v)) for k, v in inner))
        if tag == "set":
            return JsSet(tuple(decode(item) for item in inner))
        if tag == "bigint":
            return BigInt(int(inner))
        if tag == "error":
            return JsError(name=inner["name"], message=inner["message"])
        if tag == "object":
            return {key: decode(item) for key, item in inner.items()}
        raise ValueError(f"unknown value tag {tag!r} in the effect log")
    raise TypeError(f"cannot decode {type(data).__name__} from the effect log")


def text_or_bytes(data: bytes) -> str | dict[str, str]:
    """Stored bytes as a store that keeps bytes for text is read back (a KV value, an S3
    body): their UTF-8 text when they are UTF-8, else the bytes in the log's encoding."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return _bytes(data)
