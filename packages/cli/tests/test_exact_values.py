"""The Cloudflare runtime's exact reading of Core decisions agrees with the spec ladder's value encoding.

``packages/cloudflare/runtime/exact.mjs`` writes a decision's ``argsExact``/``resultExact``
with spec's encoder, which it re-exports from ``../../spec/js/values.mjs`` (the path holds in a
checkout, in runfiles and in installed wheels); the prover reads them with the same encoding
(``eutaxy.spec.values`` in Python, ``js/values.mjs`` in Node). Here (the CLI may use both
packages) spec's vector test, ``js/test/values.test.mjs``, runs with the runtime's module as
the encoder under test, so a runtime that stops reaching spec's encoder, or keeps one of its own
that drifts, fails: every vector in
``value_vectors.json`` must encode as the vector says and decode back, and every inexact one
must be refused with the vector's reason.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from eutaxy.cli.provers import node_toolchain
from eutaxy.cloudflare.host import find_runtime
from eutaxy.core.errors import UserError
from eutaxy.spec import js_module_dir


@pytest.fixture(scope="module")
def node() -> str:
    try:
        return str(node_toolchain().node)
    except UserError as error:
        pytest.fail(f"the pinned Node toolchain is needed (eutaxy toolchain install, or EUTAXY_NODE_MODULES): {error}")


def test_the_runtime_encoder_meets_every_value_vector(node):
    """node --test values.test.mjs passes with runtime/exact.mjs as the encoder, and says it tested that one."""
    exact_module = (find_runtime() / "exact.mjs").as_uri()
    done = subprocess.run([node, "--test", "--test-reporter=tap", str(js_module_dir() / "test" / "values.test.mjs")],
                          env={**os.environ, "EUTAXY_EXACT_MODULE": exact_module},
                          capture_output=True, text=True, timeout=120)
    assert 0 == done.returncode, done.stdout + done.stderr
    # The test names its encoder: the runtime's was the one held to the vectors, not spec's own.
    assert f"the encoder under test is exact from {exact_module}" in done.stdout
