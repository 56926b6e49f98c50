"""Shared fixtures: the pinned Node toolchain, and the fixture module read once with an evaluator over it."""

import sys
from pathlib import Path

import pytest

from eutaxy.prover.evaluator import Evaluator
from eutaxy.prover.reader import read_spec

# The prover's test helpers: Bazel puts them on the path (//packages/prover:test_support);
# a run from a checkout finds them in the prover's tests folder.
sys.path.append(str(Path(__file__).resolve().parents[2] / "prover" / "tests"))
from prover_support import toolchain as toolchain

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def basics(toolchain):
    return read_spec(FIXTURES / "basics" / "domain.props.ts", toolchain)


@pytest.fixture(scope="session")
def basics_evaluator(toolchain):
    with Evaluator(FIXTURES / "basics" / "domain.props.ts", toolchain) as evaluator:
        yield evaluator
