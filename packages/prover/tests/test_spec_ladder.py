"""One property up the whole ladder, with a fake engine standing in for prover_smt / prover_lean."""

import attrs

from eutaxy.core.verdicts import SpecVerdict
from eutaxy.prover.engine import Prover
from eutaxy.prover.report import run_report
from eutaxy.prover.spec_ladder import run_ladder

from prover_support import FIXTURES, prop


@attrs.define
class FakeEngine:
    """Answers a fixed kind for every property and records what it was asked."""

    kind: str
    name: str = "fake"
    asked: list = attrs.Factory(list)

    def prove(self, module, prop):
        self.asked.append((module.spec.rsplit("/", 1)[-1], prop.name))
        reasons = ("gave_up",) if self.kind == "unknown" else ()
        return SpecVerdict(kind=self.kind, property=prop.name, rung="proven", engine={"name": self.name, "version": "0"},
                           reasons=reasons, detail="fake")


def test_fake_engine_is_a_prover():
    """The Protocol is structural: anything with name and prove() is an engine."""
    assert isinstance(FakeEngine("proven"), Prover)


def test_checked_tested_and_an_engine(tested_module, tested_evaluator):
    """Recorded calls run CHECKED, drawn inputs TESTED, and an engine proving lifts the verdict to PROVEN, counts kept."""
    engine = FakeEngine("proven")
    verdict, rungs = run_ladder(tested_module, prop(tested_module, "addCommutes"), tested_evaluator, "s",
                                calls=[{"args": [1, 2], "result": 3}], provers=[engine], max_inside=10)
    assert ("proven", {"checked": 1, "tested": rungs["tested"].verdict.counts["tested"]}) == (verdict.kind, verdict.counts)
    assert {"checked", "tested"} == set(rungs)
    assert [("domain.props.ts", "addCommutes")] == engine.asked


def test_engine_proving_against_a_counterexample_is_conflict(tested_module, tested_evaluator):
    """An engine proving what TESTED refuted is CONFLICT, never resolved automatically."""
    verdict, _ = run_ladder(tested_module, prop(tested_module, "feePositive"), tested_evaluator, "s",
                            provers=[FakeEngine("proven")])
    assert "conflict" == verdict.kind


def test_report_folds_engines(toolchain):
    """run_report passes its provers to every property; an engine that gave up leaves TESTED standing, noted."""
    engine = FakeEngine("unknown")
    result = run_report(FIXTURES / "report" / "nested", "s", toolchain=toolchain, provers=[engine])
    [module] = result["modules"]
    [entry] = module["properties"]
    assert "tested" == entry["kind"]
    assert "engine fake did not decide: fake" in entry["assumptions"]
    assert [("names.props.ts", "greets")] == engine.asked
