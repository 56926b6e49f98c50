"""The spec-reader corpus: modules whose function bodies have a known SpecIR (the reader's trust anchor).

Each case folder holds ``domain.ts``, ``domain.props.ts`` and ``expected.json``
(``about``, and ``functions``: every function the properties reach, as the
reader must write it: early returns as conditionals, const bindings as let,
record literals with their contextual type, and each construct outside the
subset as an ``outside`` node with its construct and line). The reader is not
self-verifiable (it is where a compiler change lands), so a change in what it
writes fails here and is reviewed as a change of the expected files.
"""

import json
from pathlib import Path

import pytest

from eutaxy.cli.provers import node_toolchain
from eutaxy.core.errors import UserError
from eutaxy.prover.reader import read_specs

HERE = Path(__file__).resolve().parent
CASES = sorted(p.name for p in HERE.iterdir() if (p / "expected.json").is_file())


@pytest.fixture(scope="module")
def reads():
    try:
        toolchain = node_toolchain()
    except UserError as error:
        pytest.fail(f"a corpus gate never skips: {error}")
    return dict(zip(CASES, read_specs([HERE / c / "domain.props.ts" for c in CASES], toolchain)))


@pytest.mark.parametrize("case", CASES)
def test_bodies_read_as_expected(case, reads):
    """The reader writes exactly the expected SpecIR for every function the case's properties reach."""
    module = reads[case]
    assert [] == list(module.diagnostics)
    expected = json.loads((HERE / case / "expected.json").read_text())["functions"]
    assert expected == [f.to_data() for f in module.functions]


def test_the_corpus_has_its_cases():
    """Branches and constants, datatypes, and constructs outside the subset."""
    assert ["branches", "datatypes", "outside"] == CASES
