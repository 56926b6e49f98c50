"""Shared fixtures: the pinned Node toolchain, and evaluators over the fixture spec files.

Tests that need Node skip when no toolchain is found (``EUTAXY_NODE_MODULES``,
else the workspace's ``toolchain/node/node_modules``).
"""

from pathlib import Path

import pytest

from eutaxy.core.errors import UserError
from eutaxy.prover.evaluator import Evaluator
from eutaxy.prover.node import find_toolchain

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def toolchain():
    try:
        return find_toolchain()
    except UserError as error:
        pytest.skip(str(error))


@pytest.fixture(scope="session")
def tested_module(toolchain):
    from eutaxy.prover.reader import read_spec

    return read_spec(FIXTURES / "tested" / "domain.props.ts", toolchain)


@pytest.fixture(scope="module")
def tested_evaluator(toolchain):
    with Evaluator(FIXTURES / "tested" / "domain.props.ts", toolchain) as evaluator:
        yield evaluator


@pytest.fixture(scope="module")
def evaluator(toolchain):
    with Evaluator(FIXTURES / "evaluator" / "domain.props.ts", toolchain) as evaluator:
        yield evaluator


def prop(module, name):
    return next(p for p in module.properties if p.name == name)
