"""Shared fixtures: the pinned Node toolchain, and the fixture module read once with an evaluator over it."""

from pathlib import Path

import pytest

from eutaxy.core.errors import UserError
from eutaxy.prover.evaluator import Evaluator
from eutaxy.prover.node import find_toolchain
from eutaxy.prover.reader import read_spec

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def toolchain():
    try:
        return find_toolchain()
    except UserError as error:
        pytest.fail(f"the pinned Node toolchain is needed (eutaxy toolchain install, or EUTAXY_NODE_MODULES): {error}")


@pytest.fixture(scope="session")
def basics(toolchain):
    return read_spec(FIXTURES / "basics" / "domain.props.ts", toolchain)


@pytest.fixture(scope="session")
def basics_evaluator(toolchain):
    with Evaluator(FIXTURES / "basics" / "domain.props.ts", toolchain) as evaluator:
        yield evaluator
