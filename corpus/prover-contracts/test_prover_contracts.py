"""The prover-contracts corpus: modules whose TESTED verdicts are known, checked under three seeds.

Each case folder holds ``domain.ts``, ``domain.props.ts`` and ``expected.json``
(``properties``: per property its ``kind`` and, where fixed, ``inside`` (the
count), ``args`` (the shrunk counterexample, in the value encoding),
``reasons``, ``found``: ``"edges"`` when the edges must find it before any
random draw, ``"random"`` when no edge can, and ``maxDrawsPerInside``: the most
draws, edges included, the rung may spend per input inside the claim, for
steering). A verdict that moves fails here.
"""

import json
from pathlib import Path

import pytest

from eutaxy.cli.provers import node_toolchain
from eutaxy.core.errors import UserError
from eutaxy.prover.report import run_report

HERE = Path(__file__).resolve().parent
CASES = sorted(p.name for p in HERE.iterdir() if (p / "expected.json").is_file())
SEEDS = ("corpus-1", "corpus-2", "corpus-3")
_REPORTS: dict[str, dict] = {}


def _report(seed: str) -> dict:
    """One report over the whole corpus per seed, shared by every case's assertions."""
    if seed not in _REPORTS:
        try:
            toolchain = node_toolchain()
        except UserError as error:
            pytest.fail(f"a corpus gate never skips: {error}")
        _REPORTS[seed] = run_report(HERE, seed, toolchain=toolchain)
    return _REPORTS[seed]


def _expected(case: str) -> dict:
    return json.loads((HERE / case / "expected.json").read_text())["properties"]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("case", CASES)
def test_case_verdicts(case, seed):
    """Every property of the case reaches its expected verdict under this seed."""
    module = next(m for m in _report(seed)["modules"] if m["spec"] == f"{case}/domain.props.ts")
    assert not module.get("error") and [] == module["diagnostics"]
    found = {p["property"]: p for p in module["properties"]}
    expected = _expected(case)
    assert sorted(expected) == sorted(found)
    for name, want in expected.items():
        got = found[name]
        assert (name, want["kind"]) == (name, got["kind"])
        assert seed == got["seed"]
        if "inside" in want:
            assert want["inside"] == got["counts"]["tested"]
        if "reasons" in want:
            assert want["reasons"] == got["reasons"]
        if "args" in want:
            assert want["args"] == got["counterexample"]["args"]
        if "maxDrawsPerInside" in want:
            assert got["tested"]["draws"] <= want["maxDrawsPerInside"] * got["counts"]["tested"], "steered inside"
        if want.get("found") == "edges":
            assert got["tested"]["draws"] <= got["tested"]["edges"], "found before any random draw"
            assert want["args"] == got["counterexample"]["drawn"]
        if want.get("found") == "random":
            assert got["tested"]["draws"] > got["tested"]["edges"]


def test_every_case_is_listed():
    """The corpus has the seven contract cases the first brief names, the two of the second, and the five the SMT engine adds."""
    assert ["array_repeat", "deep_range", "edge_negzero_nan", "gave_up", "isolated_failures", "mutating",
            "out_of_subset", "patched_builtin", "records_unions", "regex_guarded", "residue_mod_1000",
            "solver_gave_up", "steered_parts", "true_claim"] == CASES
