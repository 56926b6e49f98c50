"""eutaxy.core.values writes what vectors/values.json says, row by row; the runtime's
runtime/values.mjs is held to the same file (runtime/test/values.test.mjs), so a changed row
fails both suites."""

from __future__ import annotations

import datetime
import json
import pathlib
from typing import Any

import pytest

from eutaxy.core import values
from eutaxy.core.values import JsError, JsMap, JsSet
from eutaxy.spec.values import UNDEFINED, BigInt

VECTORS = json.loads((pathlib.Path(values.__file__).with_name("vectors") / "values.json").read_text(encoding="utf-8"))
SCOPE = {"datetime": datetime, "BigInt": BigInt, "UNDEFINED": UNDEFINED, "JsMap": JsMap, "JsSet": JsSet, "JsError": JsError}


def _python(source: str) -> Any:
    return eval(source, dict(SCOPE))  # the vector file's own expressions


def _same_text(a: Any, b: Any) -> bool:
    """Equal as JSON text, key order included (the log keeps a record's order)."""
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


ROWS = [row for row in VECTORS["rows"] if "python" in row]


@pytest.mark.parametrize("row", ROWS, ids=[row["name"] for row in ROWS])
def test_a_row_encodes_to_its_logged_form(row):
    """encode(python) is the row's `logged`, exactly, and plain_data says yes."""
    value = _python(row["python"])
    assert values.plain_data(value)
    assert _same_text(row["logged"], values.encode(value)), row["name"]


@pytest.mark.parametrize("row", VECTORS["rows"], ids=[row["name"] for row in VECTORS["rows"]])
def test_a_row_decodes_to_its_value(row):
    """decode(logged) is the row's `decoded`, or the python value itself; it encodes back to
    `logged` (but an invalid Date, which Python has no value for, decodes to None)."""
    decoded = values.decode(row["logged"])
    if "decoded" in row:
        assert row["decoded"] == repr(decoded)
    else:
        assert _python(row["python"]) == decoded
    if decoded is not None or row["logged"] is None:
        assert _same_text(row["logged"], values.encode(decoded))


NOT_PLAIN = [row for row in VECTORS["notPlain"] if "python" in row]


@pytest.mark.parametrize("row", NOT_PLAIN, ids=[row["name"] for row in NOT_PLAIN])
def test_what_is_not_plain_data_is_refused(row):
    """encode refuses the row's value with NotPlainData, and plain_data says no."""
    value = _python(row["python"])
    assert not values.plain_data(value)
    with pytest.raises(values.NotPlainData):
        values.encode(value)


@pytest.mark.parametrize("row", VECTORS["storedBytes"], ids=[row["name"] for row in VECTORS["storedBytes"]])
def test_stored_bytes_read_as_text_or_bytes(row):
    """text_or_bytes gives the row's reading."""
    assert row["read"] == values.text_or_bytes(bytes(row["bytes"]))


def test_the_depth_bound_holds():
    """DEPTH_MAX nested lists are plain data; one more is not (the runtime's bound too)."""
    deep: Any = 1
    for _ in range(values.DEPTH_MAX):
        deep = [deep]
    assert values.plain_data(deep)
    assert not values.plain_data([deep])


def test_an_unknown_tag_is_refused():
    """A tag the encoding does not define is an error, never read as a record."""
    with pytest.raises(ValueError, match="unknown value tag 'regexp'"):
        values.decode({"$": "regexp", "v": "x"})
