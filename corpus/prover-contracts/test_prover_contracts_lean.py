"""The prover-contracts corpus with the Lean engine: the emitted Lean 4 of every module, held by golden files.

Each case's ``expected.lean`` is the Lean file the engine emits for its spec
file (records, definitions, statements, theorems with the tactic script, and a
comment naming the construct and line that kept each refused function and
property out). The text depends only on the SpecIR and the file names, so it
is compared byte for byte; ``EUTAXY_UPDATE_GOLDEN=1`` writes the files anew
after a deliberate change (review the diff).

No Lean runs here: these machines have none (docs/specs.md, "The Lean
engine"). With none installed, ``eutaxy report --prover lean`` answers
UNKNOWN (unavailable) for every property, naming the install command.
"""

import io
import json
import os
from pathlib import Path

import pytest

from eutaxy.cli.provers import node_toolchain
from eutaxy.core.errors import UserError
from eutaxy.prover.reader import read_specs
from eutaxy.prover.report import find_spec_files
from eutaxy.prover_lean import emit_module
from eutaxy.spec import SpecModule

HERE = Path(__file__).resolve().parent
CASES = sorted(p.name for p in HERE.iterdir() if (p / "expected.json").is_file())
_READ: dict[str, SpecModule] = {}


def _modules() -> dict[str, SpecModule]:
    """Every case's spec file read into SpecIR once (one reader process)."""
    if not _READ:
        try:
            toolchain = node_toolchain()
        except UserError as error:
            pytest.fail(f"a corpus gate never skips: {error}")
        specs = find_spec_files(HERE)
        for path, read in zip(specs, read_specs(specs, toolchain)):
            assert isinstance(read, SpecModule), read
            _READ[path.parent.name] = read
    return _READ


@pytest.mark.parametrize("case", CASES)
def test_emitted_lean_matches_the_golden_file(case):
    """The case's module emits exactly its golden Lean file, twice over."""
    module = _modules()[case]
    text = emit_module(module).text
    golden = HERE / case / "expected.lean"
    if os.environ.get("EUTAXY_UPDATE_GOLDEN") == "1":
        golden.write_text(text, encoding="utf-8")
    assert golden.read_text(encoding="utf-8") == text
    assert text == emit_module(module).text


def test_every_case_has_one_spec_file_and_a_golden_file():
    """One spec file per case, so one golden file per case names its Lean."""
    assert sorted(_modules()) == CASES
    assert all((HERE / case / "expected.lean").is_file() for case in CASES)


@pytest.mark.parametrize("case", CASES)
def test_each_refused_property_names_construct_and_line(case):
    """A property the engine does not take says which construct, where, at which line; none is dropped."""
    module = _modules()[case]
    emission = emit_module(module)
    for prop in module.properties:
        assert (prop.name in emission.theorems) != (prop.name in emission.unsupported), prop.name
        if prop.name in emission.unsupported:
            refused = emission.unsupported[prop.name]
            assert refused.construct and refused.line > 0, (prop.name, refused.describe())


def test_report_with_lean_is_unknown_unavailable_naming_the_install_command(tmp_path, monkeypatch):
    """`eutaxy report corpus/prover-contracts/true_claim --prover lean`: UNKNOWN (unavailable) with the command, exit 0.

    The Lean answer lowers nothing: the folded verdict is TESTED as without the
    engine. The whole corpus exits 1 only for the REFUTED properties it holds.
    """
    from eutaxy.cli.main import main

    monkeypatch.setenv("EUTAXY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("HOME", str(tmp_path))
    out, err = io.StringIO(), io.StringIO()
    code = main(["report", str(HERE / "true_claim"), "--prover", "lean", "--json", "--seed", "corpus-1"],
                stdout=out, stderr=err)
    assert 0 == code, err.getvalue()
    [module] = json.loads(out.getvalue())["modules"]
    [prop] = module["properties"]
    [answer] = prop["engines"]
    assert ("tested", "unknown", ["unavailable"]) == (prop["kind"], answer["kind"], answer["reasons"])
    assert "eutaxy prover install lean" in answer["detail"]
