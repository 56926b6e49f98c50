"""The soundness corpus: no engine proves a false claim, and the true ones reach their verdict, under three seeds.

``cases/`` holds small modules written as business code is written (fees, discounts,
taxes, quotas, proration), one folder per kind of false proof the engines once gave:
bodies found by name (two ``fee`` functions, a private helper named like the module's
own, local and spec-file aliases, re-exports, default exports, namespace imports),
``??`` on a module constant, a patched built-in, ``%`` with negative operands, and a
claim false only at one integer next to a constant of the source. Each folder has
``domain.ts`` (and what it imports), ``domain.props.ts`` and ``expected.json``: per
property ``claim`` (true or false in Node), ``smt`` (the SMT engine's own answer:
``kind``; for UNKNOWN its ``reasons``, the refused ``construct``, ``file`` and ``line``,
and ``gaveUpAt``, ``"step limit"`` or ``"deadline"``), ``withSmt`` (the folded verdict
of ``eutaxy report --prover smt``) and, for the claims false at one input only, ``args``
(the counterexample) with ``found: "edges"`` (found before any random draw).

A false claim is never PROVEN by any engine (smt, and lean where Lean is installed), its
folded verdict is REFUTED, and its counterexample was replayed on the real function. A
true claim is never REFUTED, and the SMT engine reaches the answer ``smt`` states (PROVEN
for the claims across two modules). ``past_deadline/`` holds a ``%`` claim Z3 does not
stop on within any step limit; it is run with a 2 s deadline and must end UNKNOWN
(gave_up) naming the deadline. The reader reads each folder once for the three seeds,
and the engines' answers are cached between seeds as CI keeps them (a deadline stop is
never cached, so that folder solves again each time).
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from eutaxy.cli.provers import node_toolchain
from eutaxy.core.errors import UserError
from eutaxy.prover.reader import read_specs
from eutaxy.prover.report import find_spec_files, run_report
from eutaxy.prover.tested import MAX_INSIDE_DEFAULT
from eutaxy.prover_lean import LeanProver
from eutaxy.prover_smt import RLIMIT_DEFAULT, SmtProver

HERE = Path(__file__).resolve().parent
CASES_DIR, PAST_DEADLINE_DIR = HERE / "cases", HERE / "past_deadline"
CASES = sorted(p.name for p in CASES_DIR.iterdir() if (p / "expected.json").is_file())
SEEDS = ("corpus-1", "corpus-2", "corpus-3")
#: The wall-clock deadline past_deadline/ runs under: what a user's --prover-deadline 2 gives.
SHORT_DEADLINE_S = 2
_REPORTS: dict[tuple[str, str], dict] = {}
_READ: dict[Path, list] = {}


@pytest.fixture(scope="module", autouse=True)
def _private_cache(tmp_path_factory):
    """One cache for the module's reports, empty at the start: the first seed solves, the others answer from it."""
    before = os.environ.get("EUTAXY_CACHE_DIR")
    os.environ["EUTAXY_CACHE_DIR"] = str(tmp_path_factory.mktemp("eutaxy-cache"))
    yield
    if before is None:
        del os.environ["EUTAXY_CACHE_DIR"]
    else:
        os.environ["EUTAXY_CACHE_DIR"] = before


def _toolchain():
    try:
        return node_toolchain()
    except UserError as error:
        pytest.fail(f"a corpus gate never skips: {error}")


def _lean() -> LeanProver:
    """Bazel's pinned Lean when it has one (tools/bazel/pytest_main.py), else the engine's own lookup."""
    given = os.environ.get("EUTAXY_LEAN_LOCATION", "")
    return LeanProver(lean=Path(given)) if given and not given.startswith("unavailable: ") else LeanProver()


def _report(folder: Path, seed: str) -> dict:
    """One report per folder and seed, every engine asked; the folder is read once for all seeds."""
    key = (folder.name, seed)
    if key not in _REPORTS:
        toolchain = _toolchain()
        smt = SmtProver(deadline_s=SHORT_DEADLINE_S) if folder == PAST_DEADLINE_DIR else SmtProver()
        assert "version" in smt.available(), f"a corpus gate never skips: {smt.available()}"
        if folder not in _READ:
            _READ[folder] = read_specs(find_spec_files(folder), toolchain)
        _REPORTS[key] = run_report(folder, seed, toolchain=toolchain, provers=[smt, _lean()], read=_READ[folder])
    return _REPORTS[key]


def _expected(folder: Path) -> dict:
    return json.loads((folder / "expected.json").read_text())["properties"]


def _module(report: dict, case: str) -> dict:
    module = next(m for m in report["modules"] if m["spec"] == f"{case}/domain.props.ts")
    assert not module.get("error") and [] == module["diagnostics"], module.get("error") or module["diagnostics"]
    return module


def _check(name: str, got: dict, want: dict, seed: str) -> None:
    """One property's verdicts against its expectation."""
    answers = {a["engine"]["name"]: a for a in got["engines"]}
    assert {"smt", "lean"} == set(answers), name
    fold = got["kind"]
    if not want["claim"]:
        assert [] == [engine for engine, a in answers.items() if a["kind"] == "proven"], f"{name} is false: never PROVEN"
        assert "refuted" == fold, (name, fold, got.get("detail"))
        # Replayed on the real function before it was called REFUTED (the fold's, and any engine's).
        assert got["counterexample"]["outcome"]["kind"] in ("false", "threw"), name
        for engine, a in answers.items():
            if a["kind"] == "refuted":
                assert a["counterexample"]["outcome"]["kind"] in ("false", "threw"), (name, engine)
    else:
        assert [] == [engine for engine, a in answers.items() if a["kind"] in ("refuted", "conflict")], name
        assert fold not in ("refuted", "conflict"), (name, fold, got.get("detail"))
    smt, want_smt = answers["smt"], want["smt"]
    assert {"name": "smt", "version": "5.4.1"} == smt["engine"]
    assert (name, want_smt["kind"]) == (name, smt["kind"]), smt.get("detail")
    if "reasons" in want_smt:
        assert want_smt["reasons"] == smt["reasons"], name
    if "construct" in want_smt:
        assert {k: want_smt[k] for k in ("construct", "file", "line")} == \
            {k: smt["unsupported"][k] for k in ("construct", "file", "line")}, name
    if want_smt.get("gaveUpAt") == "step limit":
        assert f"Z3's step limit ran out (rlimit {RLIMIT_DEFAULT})" == smt["detail"], name
    if want_smt.get("gaveUpAt") == "deadline":
        assert f"wall-clock deadline of {SHORT_DEADLINE_S} s" in smt["detail"], name
    if smt["kind"] == "proven":
        assert "the built-ins (Math, Number) are the standard ones" in smt["assumptions"]
    lean_proved = answers["lean"]["kind"] == "proven"
    # Where Lean is installed it may prove a true claim smt left open: the fold is then PROVEN.
    assert fold == want["withSmt"] or (want["claim"] and lean_proved and fold == "proven"), (name, fold)
    assert seed == got["seed"]
    if "args" in want:
        assert want["args"] == got["counterexample"]["args"], name
    if want.get("found") == "edges":
        assert got["tested"]["draws"] <= got["tested"]["edges"], f"{name}: found before any random draw"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("case", CASES)
def test_case(case, seed):
    """Every property of the case: false never PROVEN and REFUTED; true never REFUTED and decided as expected."""
    module = _module(_report(CASES_DIR, seed), case)
    found = {p["property"]: p for p in module["properties"]}
    expected = _expected(CASES_DIR / case)
    assert sorted(expected) == sorted(found)
    for name, want in expected.items():
        _check(name, found[name], want, seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_claim_z3_does_not_stop_on_ends_at_its_deadline(seed):
    """`% 100` under a 2 s deadline: UNKNOWN (gave_up) naming the deadline, never PROVEN; TESTED refutes the false claim."""
    module = _module(_report(PAST_DEADLINE_DIR, seed), "remainder")
    found = {p["property"]: p for p in module["properties"]}
    expected = _expected(PAST_DEADLINE_DIR / "remainder")
    assert sorted(expected) == sorted(found)
    for name, want in expected.items():
        _check(name, found[name], want, seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_isolated_failures_are_refuted_at_the_default_input_count(seed):
    """The claims false at one integer next to a source constant: REFUTED at the default count under every seed."""
    report = _report(CASES_DIR, seed)
    assert MAX_INSIDE_DEFAULT == report["maxInside"] == 100
    found = {p["property"]: p for p in _module(report, "isolated_constant")["properties"]}
    isolated = {name: want["args"] for name, want in _expected(CASES_DIR / "isolated_constant").items() if "args" in want}
    assert {"requestsLeftNeverNegative": [249], "unitPriceAtMostList": [99], "graceAtMostAMinute": [-90000],
            "shippingAtMostStandard": [5001]} == isolated
    assert {name: ("refuted", "tested", args) for name, args in isolated.items()} == \
        {name: (found[name]["kind"], found[name]["rung"], found[name]["counterexample"]["args"]) for name in isolated}


def test_the_corpus_holds_each_kind_of_false_proof():
    """Every kind the issue names is here, with false claims (never PROVEN) and true ones (a verdict to reach)."""
    assert ["default_exports", "isolated_constant", "namespace_imports", "negative_remainder", "nullish_constants",
            "patched_global", "patched_round", "private_helper", "reexports", "same_name_fees", "two_modules"] == CASES
    for case in CASES:
        claims = [want["claim"] for want in _expected(CASES_DIR / case).values()]
        assert True in claims and False in claims, case
        for want in _expected(CASES_DIR / case).values():
            assert {"claim", "smt", "withSmt"} <= set(want)
    proven_true = [name for case in CASES for name, want in _expected(CASES_DIR / case).items()
                   if want["claim"] and want["smt"]["kind"] == "proven"]
    assert {"cheapestNeverAboveBank", "overageNeverAboveUsage", "billAtLeastPlanPrice", "wrappingAdds350",
            "bestIsAtLeastEach", "vatAtLeastExempt"} <= set(proven_true), "claims across modules must be PROVEN"


def test_the_cli_report_exits_1_with_the_expected_verdicts():
    """`eutaxy report cases --prover smt --json --seed corpus-1`: exit 1 (REFUTED), never 0, and the verdicts expected.

    The engine's answers come from the cache the reports above filled, as a second run of the command would.
    """
    from eutaxy.cli.main import main

    _report(CASES_DIR, SEEDS[0])
    out, err = io.StringIO(), io.StringIO()
    code = main(["report", str(CASES_DIR), "--prover", "smt", "--json", "--seed", SEEDS[0]], stdout=out, stderr=err)
    assert 1 == code, err.getvalue()
    found = {(m["spec"], p["property"]): p for m in json.loads(out.getvalue())["modules"] for p in m["properties"]}
    expected = {(f"{case}/domain.props.ts", name): want for case in CASES
                for name, want in _expected(CASES_DIR / case).items()}
    assert sorted(expected) == sorted(found)
    for key, want in expected.items():
        [smt] = found[key]["engines"]
        assert (key, want["withSmt"], want["smt"]["kind"]) == (key, found[key]["kind"], smt["kind"])
