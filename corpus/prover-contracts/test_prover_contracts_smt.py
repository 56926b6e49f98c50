"""The prover-contracts corpus with the SMT engine: each case's expected answer from smt, and the ladder's fold.

Each property in ``expected.json`` may carry ``smt`` (the engine's own answer:
``kind``, and where fixed ``reasons``, ``args`` of the replayed counterexample,
and for UNKNOWN (unsupported) the refused ``construct``, its ``line`` and the
``file`` it stands in, ``"module"`` or ``"spec"``) and ``withSmt`` (the folded
verdict of ``eutaxy report --prover smt``). Every REFUTED from the engine was
replayed on the real function; a CONFLICT shows both answers. Three seeds, and
the report's canonical JSON byte-identical when proved again without the cache,
and the CLI's ``--json`` output byte-identical across two runs of each seed.
"""

import io
import json
from pathlib import Path

import pytest

from eutaxy.cli.provers import node_toolchain
from eutaxy.core.canonical import to_json
from eutaxy.core.errors import UserError
from eutaxy.prover.report import run_report
from eutaxy.prover_smt import SmtProver

HERE = Path(__file__).resolve().parent
CASES = sorted(p.name for p in HERE.iterdir() if (p / "expected.json").is_file())
SEEDS = ("corpus-1", "corpus-2", "corpus-3")
_REPORTS: dict[tuple[str, bool], dict] = {}


def _report(seed: str, cache: bool = True) -> dict:
    """One report per seed over the whole corpus (the engine's answers cached between seeds, as CI keeps them)."""
    if (seed, cache) not in _REPORTS:
        try:
            toolchain = node_toolchain()
        except UserError as error:
            pytest.fail(f"a corpus gate never skips: {error}")
        prover = SmtProver(cache_results=cache)
        status = prover.available()
        assert "version" in status, f"a corpus gate never skips: {status}"
        _REPORTS[(seed, cache)] = run_report(HERE, seed, toolchain=toolchain, provers=[prover])
    return _REPORTS[(seed, cache)]


def _expected(case: str) -> dict:
    return json.loads((HERE / case / "expected.json").read_text())["properties"]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("case", CASES)
def test_case_with_smt(case, seed):
    """The engine's own answer and the folded verdict are what the case expects, under this seed."""
    module = next(m for m in _report(seed)["modules"] if m["spec"] == f"{case}/domain.props.ts")
    found = {p["property"]: p for p in module["properties"]}
    for name, want in _expected(case).items():
        got = found[name]
        [answer] = got["engines"]
        smt = want["smt"]
        assert (name, smt["kind"], want["withSmt"]) == (name, answer["kind"], got["kind"])
        assert {"name": "smt", "version": "5.4.1"} == answer["engine"]
        if "reasons" in smt:
            assert smt["reasons"] == answer["reasons"]
        if "construct" in smt:
            assert {k: smt[k] for k in ("construct", "line", "file")} == {
                k: answer["unsupported"][k] for k in ("construct", "line", "file")}
        if smt["kind"] == "refuted":
            # Replayed on the real function before it was called REFUTED.
            assert answer["counterexample"]["outcome"]["kind"] in ("false", "threw")
        if "args" in smt:
            assert smt["args"] == answer["counterexample"]["args"]
        if got["kind"] == "proven":
            assert "the built-ins (Math, Number) are the standard ones" in got["assumptions"]
        if got["kind"] == "conflict":
            assert "proves it" in got["detail"] and got["counterexample"]["args"]


def test_reports_are_byte_identical_when_proved_again():
    """The same files and seed give the same bytes, whether the engine's answers came from the cache or not."""
    assert to_json(_report(SEEDS[0])) == to_json(_report(SEEDS[0], cache=False))


def test_every_expected_property_has_an_smt_answer():
    """Each case states its expected answer from the SMT engine for every property."""
    for case in CASES:
        for name, want in _expected(case).items():
            assert {"smt", "withSmt"} <= set(want), (case, name)


@pytest.mark.parametrize("seed", SEEDS)
def test_cli_report_json_is_byte_identical_across_runs(seed, tmp_path, monkeypatch):
    """`eutaxy report corpus/prover-contracts --prover smt --json --seed S` twice: the same bytes, the same exit.

    The first run proves into an empty cache, the second answers from it, so the
    bytes cannot depend on where an engine's answer came from either.
    """
    from eutaxy.cli.main import main

    monkeypatch.setenv("EUTAXY_CACHE_DIR", str(tmp_path / "cache"))
    runs = []
    for _ in range(2):
        out, err = io.StringIO(), io.StringIO()
        code = main(["report", str(HERE), "--prover", "smt", "--json", "--seed", seed], stdout=out, stderr=err)
        runs.append((code, out.getvalue()))
    assert 1 == runs[0][0], "the corpus holds REFUTED properties"
    assert runs[0] == runs[1]
    report = json.loads(runs[0][1])
    assert seed == report["seed"]
    assert {"proven", "refuted", "unknown"} <= set(report["summary"])
