"""The Lean engine against a real Lean 4.30.0: the only tests here that can be skipped, and only for want of Lean.

Bazel hands the tests the pinned Lean through tools/bazel/lean_toolchain.bzl
(``EUTAXY_LEAN_LOCATION``: the executable, or "unavailable: why"); from a
checkout the engine's own lookup decides (the cache, elan, the PATH). Without
a Lean each test is skipped with the reason, which pytest's ``-rs`` summary
(tools/bazel/pytest_main.py) prints. These machines have no Lean, so nothing
below has run here: docs/specs.md, "The Lean engine", says so.
"""

import os
from pathlib import Path

import pytest

from eutaxy.prover.engine import ProveInput
from eutaxy.prover_lean.engine import LeanProver
from eutaxy.prover_lean.proofs import proof_path
from eutaxy.prover_lean.toolchain import LEAN_VERSION, find_lean, version_of


def _real_lean() -> Path:
    given = os.environ.get("EUTAXY_LEAN_LOCATION", "")
    if given.startswith("unavailable: "):
        pytest.skip(f"no real Lean {LEAN_VERSION}: {given[len('unavailable: '):]}")
    if given:
        lean = Path(given)
    else:
        found = find_lean()
        if isinstance(found, str):
            pytest.skip(f"no real Lean {LEAN_VERSION}: {found}")
        lean = found.lean
    assert LEAN_VERSION == version_of(lean), f"{lean} is not Lean {LEAN_VERSION}"
    return lean


def test_the_tactic_script_proves_the_fixture_claims(module):
    """A real Lean: the script proves the three integer claims, accepts the total definition, refuses the loop."""
    lean = _real_lean()
    prover = LeanProver(lean=lean)
    verdicts = prover.prove(ProveInput(module=module, properties=module.properties, replay=None)).verdicts
    kinds = {name: (v.kind, v.reasons, v.detail) for name, v in verdicts.items()}
    for name in ("withinCaptured", "percentInRange", "flipTwice", "clampTerminates"):
        assert "proven" == verdicts[name].kind, kinds
    assert ("unknown", ("unsupported",)) == (verdicts["endsAtZero"].kind, verdicts["endsAtZero"].reasons)


def test_a_supplied_proof_is_checked_by_lean_and_a_sorry_never_reaches_it(module):
    """A real Lean: a supplied proof is PROVEN as supplied; a file holding sorry is refused before Lean runs."""
    lean = _real_lean()
    proof_path(module.spec).write_text("-- proof: flipTwice\nintro v_b\ncases v_b <;> decide\n")
    verdicts = LeanProver(lean=lean).prove(ProveInput(module=module, properties=module.properties,
                                                      replay=None)).verdicts
    assert "proven" == verdicts["flipTwice"].kind, verdicts["flipTwice"].detail
    assert "the proof was supplied in domain.props.lean" in verdicts["flipTwice"].assumptions
    proof_path(module.spec).write_text("-- proof: flipTwice\nsorry\n")
    verdicts = LeanProver(lean=lean).prove(ProveInput(module=module, properties=module.properties,
                                                      replay=None)).verdicts
    assert "unknown" == verdicts["flipTwice"].kind and "'sorry'" in verdicts["flipTwice"].detail
