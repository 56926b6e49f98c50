"""The spec ladder's value encoding, held on both sides to value_vectors.json.

Python reads each vector's ``encoded`` into the value its ``python`` field names and
writes it back unchanged; the JavaScript module is held to the same file by
``js/test/values.test.mjs``, run here with the pinned Node.
"""

import json
import math
import subprocess
from pathlib import Path

import pytest

from eutaxy.spec import js_module_dir
from eutaxy.spec.values import UNDEFINED, BigInt, decode, encode, js_string, key, number, show
from test_js_module import NODE

VECTORS = json.loads((Path(__file__).resolve().parents[1] / "src/eutaxy/spec/value_vectors.json").read_text("utf-8"))


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: v["name"])
def test_each_vector_decodes_to_its_python_value_and_encodes_back(vector):
    """decode gives the value the vector names; encode gives the encoding back, through JSON too."""
    decoded = decode(vector["encoded"])
    assert vector["python"] == repr(decoded)
    assert vector["encoded"] == encode(decoded)
    assert vector["encoded"] == encode(decode(json.loads(json.dumps(vector["encoded"]))))


def test_the_javascript_module_reads_and_writes_the_same_vectors():
    """node --test js/test/values.test.mjs passes: JavaScript agrees with every vector."""
    test_file = js_module_dir() / "test" / "values.test.mjs"
    done = subprocess.run([NODE, "--test", str(test_file)], capture_output=True, text=True, timeout=120)
    assert 0 == done.returncode, done.stdout + done.stderr


def test_numbers_have_one_spelling():
    """An integral safe double is an int; -0, NaN, the infinities and unsafe integers stay floats."""
    assert 3 == number(3.0) and isinstance(number(3.0), int)
    assert math.copysign(1, number(-0.0)) < 0
    assert isinstance(number(2**53), float)
    with pytest.raises(TypeError):
        number(True)


def test_distinct_values_have_distinct_keys():
    """-0 and 0, 1 and 1n, undefined and null, a $ record and a tag: all keyed apart."""
    values = [0, -0.0, 1, BigInt(1), None, UNDEFINED, {"$": "bigint", "v": "1"}, (1,), {"a": 1}]
    keys = [key(encode(v)) for v in values]
    assert len(keys) == len(set(keys))
    assert key(encode({"b": 1, "a": 2})) == key(encode({"a": 2, "b": 1}))


def test_what_the_encoding_cannot_say_is_refused():
    """A set, an unknown tag or a bad special number is an error, never a guess."""
    with pytest.raises(TypeError):
        encode({1, 2})
    with pytest.raises(ValueError):
        decode({"$": "date", "v": "0"})
    with pytest.raises(KeyError):
        decode({"$": "number", "v": "1e999"})


def test_show_writes_values_as_javascript_source():
    """show spells a decoded value as a literal: -0 keeps its sign, strings are quoted, records spaced."""
    assert "[-0, NaN, 1n, undefined, null, \"a\"]" == show((-0.0, math.nan, BigInt(1), UNDEFINED, None, "a"))
    assert "{ a: 1, b: [true] }" == show({"a": 1, "b": (True,)})
    assert "{}" == show({})
    assert "-Infinity" == show(-math.inf)
    assert '"a\\ud800b\u00e9"' == show("a\ud800b\u00e9")


@pytest.mark.parametrize("value,text", [
    (0.5, "0.5"), (-0.0, "0"), (1e21, "1e+21"), (1e-7, "1e-7"), (123e-9, "1.23e-7"), (1e20, "100000000000000000000"),
    (0.000001, "0.000001"), (2.0**53, "9007199254740992"), (math.nan, "NaN"), (BigInt(-5), "-5"), (None, "null"),
])
def test_js_string_is_what_string_writes(value, text):
    """js_string follows Number::toString's layout: plain digits up to 21, exponents below 1e-6."""
    assert text == js_string(value)
