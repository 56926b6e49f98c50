"""The one summarizer: every value Eutaxy records, compares or reports goes through ``to_json``.

Keys, rows and verdicts compare by their ``to_json`` text, so this function decides what
"the same" means everywhere. It is exact for JSON data and writes everything else one way
on every machine (and the way the JavaScript runtime's summarizer writes it):

- ``None``, booleans and strings as JSON; strings keep non-ASCII characters as they are and
  escape control characters and lone surrogates as ``\\uXXXX``.
- Integers of any size as their decimal digits (a JSON number). A Python ``int`` beyond
  2**53 is a "bigint": its digits are exact, so two distinct bigints never collide.
- Floats as ECMAScript's ``Number.prototype.toString`` writes them, from the shortest
  digits that round-trip: ``1.0`` is ``1`` (so an integral float and the equal int are one
  key, as they are one number in JavaScript), ``1e-7`` is ``1e-7``, ``1e21`` is ``1e+21``;
  ``-0.0`` is ``0`` (JavaScript's ``-0 === 0``); NaN and the infinities, which JSON cannot
  hold, are the strings ``"NaN"``, ``"Infinity"`` and ``"-Infinity"``.
- Objects with their keys sorted by UTF-16 code units (JavaScript's default string order),
  no spaces. A key that is not a string is replaced by its own ``to_json`` text
  (``1`` becomes ``"1"``, ``(1, 2)`` becomes ``"[1,2]"``); entries whose keys collide that way
  are all kept, ordered by their values' text.
- Lists and tuples as arrays; sets and frozensets as sorted arrays: numerically when every
  element is a number, by UTF-16 code units when every element is a string, else by the
  elements' canonical text.
- ``datetime`` in ISO form: an aware one in UTC with ``Z`` and milliseconds
  (``2026-01-01T00:00:00.000Z``, as a JavaScript ``Date`` writes itself; microseconds are
  added when they are not whole milliseconds), a naive one without a zone; ``date`` and
  ``time`` by their ``isoformat``.
- ``bytes``, ``bytearray`` and ``memoryview`` as their standard base64 string.
- attrs instances as an object of their fields; objects with ``to_data()`` by its result;
  enums by their value; ``Decimal``, ``UUID`` and paths by their text.
- A container met again inside itself (a cycle) as the string ``"<nested>"``; the same
  object appearing twice side by side is not a cycle and is written twice.
- Anything else as ``"<TypeName>"``, never a ``repr`` (which may carry a memory address).
"""

from __future__ import annotations

import base64
import datetime as _dt
import decimal
import enum
import json
import math
import pathlib
import re
import uuid
from typing import Any

import attrs

from eutaxy.spec.values import js_string

__all__ = ["NESTED", "canonical_key", "format_float", "string_order", "to_json"]

#: What a cycle is written as.
NESTED = "<nested>"

_SURROGATE = re.compile("[\ud800-\udfff]")


def to_json(value: Any) -> str:
    """Return the canonical JSON text of ``value`` (sorted keys, no spaces)."""
    parts: list[str] = []
    _write(value, parts, set())
    return "".join(parts)


def canonical_key(value: Any) -> str:
    """The text two keys are compared by: equal keys have equal text, and only they do."""
    return to_json(value)


def string_order(text: str) -> bytes:
    """Sort key putting strings in UTF-16 code-unit order, as JavaScript sorts them.

    Python orders by code point, which differs from JavaScript for characters above
    U+FFFF against those in U+E000..U+FFFF; sorting by the UTF-16 encoding keeps both
    sides' canonical text identical.
    """
    return text.encode("utf-16-be", "surrogatepass")


def format_float(number: float) -> str:
    """Write a float as ECMAScript's Number::toString does (finite numbers only).

    ``eutaxy.spec.values.js_string`` is the one writer of JavaScript numbers; canonical
    JSON asks it, so a key and a spec value never write one number two ways.
    """
    assert math.isfinite(number), number
    return js_string(number)


def _write_string(text: str, parts: list[str]) -> None:
    encoded = json.dumps(text, ensure_ascii=False)
    if _SURROGATE.search(encoded):
        encoded = _SURROGATE.sub(lambda m: "\\u%04x" % ord(m.group(0)), encoded)
    parts.append(encoded)


def _write(value: Any, parts: list[str], path: set[int]) -> None:
    # Scalars first: bool before int, since bool is an int subclass.
    if value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, str):
        _write_string(value, parts)
    elif isinstance(value, int) and not isinstance(value, enum.Enum):
        parts.append(str(int(value)))
    elif isinstance(value, float):
        if math.isnan(value):
            parts.append('"NaN"')
        elif math.isinf(value):
            parts.append('"Infinity"' if value > 0 else '"-Infinity"')
        else:
            parts.append(format_float(value))
    elif isinstance(value, (bytes, bytearray, memoryview)):
        parts.append('"' + base64.b64encode(bytes(value)).decode("ascii") + '"')
    elif isinstance(value, _dt.datetime):
        _write_string(_datetime_text(value), parts)
    elif isinstance(value, (_dt.date, _dt.time)):
        _write_string(value.isoformat(), parts)
    elif isinstance(value, enum.Enum):
        _write(value.value, parts, path)
    elif isinstance(value, (decimal.Decimal, uuid.UUID)):
        _write_string(str(value), parts)
    elif isinstance(value, pathlib.PurePath):
        _write_string(value.as_posix(), parts)
    else:
        _write_container(value, parts, path)


def _write_container(value: Any, parts: list[str], path: set[int]) -> None:
    marker = id(value)
    if marker in path:
        parts.append('"' + NESTED + '"')
        return
    path.add(marker)
    try:
        if isinstance(value, dict):
            _write_object(list(value.items()), parts, path)
        elif isinstance(value, (list, tuple)):
            _write_array([_text(item, path) for item in value], parts)
        elif isinstance(value, (set, frozenset)):
            _write_array([text for _, text in sorted(_set_entries(value, path))], parts)
        elif attrs.has(type(value)):
            fields = attrs.fields(type(value))
            _write_object([(f.name, getattr(value, f.name)) for f in fields], parts, path)
        elif callable(getattr(value, "to_data", None)):
            _write(value.to_data(), parts, path)
        else:
            _write_string("<" + type(value).__name__ + ">", parts)
    finally:
        path.discard(marker)


def _text(value: Any, path: set[int]) -> str:
    parts: list[str] = []
    _write(value, parts, path)
    return "".join(parts)


def _is_number(item: Any) -> bool:
    return isinstance(item, (int, float)) and not isinstance(item, bool) and not math.isnan(item)


def _set_entries(items: Any, path: set[int]) -> list[tuple[Any, str]]:
    """Each element's text with the key it sorts by (ties broken by the text)."""
    entries = [(item, _text(item, path)) for item in items]
    if all(_is_number(item) for item, _ in entries):
        return [((item, string_order(text)), text) for item, text in entries]
    if all(isinstance(item, str) for item, _ in entries):
        return [((string_order(item),), text) for item, text in entries]
    return [((string_order(text),), text) for _, text in entries]


def _write_array(texts: list[str], parts: list[str]) -> None:
    parts.append("[" + ",".join(texts) + "]")


def _write_object(items: list[tuple[Any, Any]], parts: list[str], path: set[int]) -> None:
    entries = []
    for key, item in items:
        key_text = key if isinstance(key, str) else _text(key, path)
        entries.append((key_text, _text(item, path)))
    entries.sort(key=lambda entry: (string_order(entry[0]), string_order(entry[1])))
    encoded = []
    for key_text, item_text in entries:
        key_parts: list[str] = []
        _write_string(key_text, key_parts)
        encoded.append(key_parts[0] + ":" + item_text)
    parts.append("{" + ",".join(encoded) + "}")


def _datetime_text(moment: _dt.datetime) -> str:
    if moment.tzinfo is not None and moment.utcoffset() is not None:
        moment = moment.astimezone(_dt.timezone.utc).replace(tzinfo=None)
        zone = "Z"
    else:
        zone = ""
    micro = moment.microsecond
    fraction = "%03d" % (micro // 1000) if micro % 1000 == 0 else "%06d" % micro
    clock = "%04d-%02d-%02dT%02d:%02d:%02d" % (
        moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second
    )
    return clock + "." + fraction + zone
