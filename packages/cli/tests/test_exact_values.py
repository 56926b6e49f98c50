"""The Cloudflare runtime's exact reading of Core decisions agrees with the spec ladder's value encoding.

``packages/cloudflare/runtime/exact.mjs`` writes a decision's ``argsExact``/``resultExact``;
the prover reads them with ``eutaxy.prover.values`` (Python) and ``reader/values.mjs``
(Node). The runtime may not import the prover, so it has an encoder of its own: here (the
CLI may use both) each special value is encoded by the runtime in Node and compared with
what the prover's Python encoder writes for the same value, and decoded by the prover's
Node decoder back to the value itself (under Object.is).
"""

from __future__ import annotations

import json
import math
import subprocess

import pytest

from eutaxy.core.canonical import to_json
from eutaxy.spec.values import UNDEFINED, BigInt, decode, encode

# Each JavaScript expression with the value Python holds for it.
SAMPLES = [
    ("-0", -0.0),
    ("0", 0),
    ("NaN", math.nan),
    ("Infinity", math.inf),
    ("-Infinity", -math.inf),
    ("undefined", UNDEFINED),
    ("null", None),
    ("true", True),
    ("1.5", 1.5),
    ("2 ** 53", float(2**53)),
    ("1e21", 1e21),
    ("12n", BigInt(12)),
    ("-12n", BigInt(-12)),
    ("2n ** 70n", BigInt(2**70)),
    ('""', ""),
    ('"a\\ud800b\\udfff"', "a\ud800b\udfff"),
    ('"\\u{1F642}"', "\U0001F642"),
    ("[-0, [NaN, undefined], 3n]", (-0.0, (math.nan, UNDEFINED), BigInt(3))),
    ("{ a: undefined, b: -0 }", {"a": UNDEFINED, "b": -0.0}),
    ('{ $: "bigint", v: "1" }', {"$": "bigint", "v": "1"}),
    ('{ nested: { $: -Infinity } }', {"nested": {"$": -math.inf}}),
    ("[]", ()),
    ("({})", {}),
]

SCRIPT = """
import { isDeepStrictEqual } from "node:util";
import { exact } from %(exact)s;
import { decode } from %(values)s;
const samples = [%(samples)s];
const out = samples.map((value) => {
  const encoded = exact(value);
  if (!encoded.ok) return { error: encoded.why };
  const crossed = JSON.parse(JSON.stringify(encoded.value));
  return { encoded: crossed, roundTrips: isDeepStrictEqual(decode(crossed), value) };
});
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def runtime_encodings() -> list[dict]:
    from eutaxy.cloudflare.host import find_runtime
    from eutaxy.core.errors import UserError
    from eutaxy.prover.node import SCRIPTS_DIR, find_toolchain

    try:
        toolchain = find_toolchain()
    except UserError as error:
        pytest.fail(f"the pinned Node toolchain is needed (eutaxy toolchain install, or EUTAXY_NODE_MODULES): {error}")
    script = SCRIPT % {
        "exact": json.dumps((find_runtime() / "exact.mjs").as_uri()),
        "values": json.dumps((SCRIPTS_DIR / "values.mjs").as_uri()),
        "samples": ", ".join(js for js, _ in SAMPLES),
    }
    answer = subprocess.run([str(toolchain.node), "--input-type=module", "-e", script],
                            capture_output=True, text=True, timeout=60, check=True)
    return json.loads(answer.stdout)


@pytest.mark.parametrize("index", range(len(SAMPLES)), ids=[js for js, _ in SAMPLES])
def test_the_runtime_writes_what_the_prover_writes(runtime_encodings, index):
    js, value = SAMPLES[index]
    got = runtime_encodings[index]
    assert "error" not in got, got
    assert to_json(encode(value)) == to_json(got["encoded"]), js
    # And the prover's Python decoder reads it back to the same value.
    assert to_json(encode(decode(got["encoded"]))) == to_json(encode(value))


@pytest.mark.parametrize("index", range(len(SAMPLES)), ids=[js for js, _ in SAMPLES])
def test_the_provers_node_decoder_reads_back_the_value_itself(runtime_encodings, index):
    assert runtime_encodings[index]["roundTrips"], SAMPLES[index][0]
