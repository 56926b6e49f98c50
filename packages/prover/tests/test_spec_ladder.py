"""One property up the whole ladder, with a fake engine standing in for prover_smt / prover_lean."""

import attrs

from eutaxy.core.verdicts import SpecVerdict
from eutaxy.prover.engine import ModuleProofs, Prover, engine_answers
from eutaxy.prover.report import run_report
from eutaxy.prover.spec_ladder import run_ladder

from prover_support import FIXTURES, prop


@attrs.define
class FakeEngine:
    """Answers a fixed kind for every property and records what it was asked."""

    kind: str
    name: str = "fake"
    asked: list = attrs.Factory(list)

    installed: bool = True

    def available(self):
        return {"version": "0"} if self.installed else {"unavailable": "run `fake install`"}

    def prove(self, input):
        engine = {"name": self.name, "version": "0"}
        verdicts = {}
        for prop in input.properties:
            self.asked.append((input.module.spec.rsplit("/", 1)[-1], prop.name))
            reasons = ("gave_up",) if self.kind == "unknown" else ()
            verdicts[prop.name] = SpecVerdict(kind=self.kind, property=prop.name, rung="proven", engine=engine,
                                              reasons=reasons, detail="fake")
        return ModuleProofs(engine=engine, verdicts=verdicts)


def test_fake_engine_is_a_prover():
    """The Protocol is structural: anything with name, available() and prove() is an engine."""
    assert isinstance(FakeEngine("proven"), Prover)


def test_an_engine_not_installed_is_unavailable_with_the_command(tested_module):
    """An engine that cannot run here answers UNKNOWN (unavailable) for every property, naming the install command."""
    engine = FakeEngine("proven", installed=False)
    answers = engine_answers(engine, tested_module, tested_module.properties, replay=None)
    assert {p.name for p in tested_module.properties} == set(answers)
    assert {("unknown", ("unavailable",), "run `fake install`")} == {
        (a.kind, a.reasons, a.detail) for a in answers.values()}
    assert [] == engine.asked


def test_two_engines_disagreeing_is_conflict_with_both_answers(tested_module, tested_evaluator):
    """One engine proving and another refuting is CONFLICT; each engine's own answer stays beside the fold."""
    verdict, rungs = run_ladder(tested_module, prop(tested_module, "addCommutes"), tested_evaluator, "s",
                                provers=[FakeEngine("proven", name="one"), FakeEngine("refuted", name="two")],
                                max_inside=10)
    assert "conflict" == verdict.kind
    assert [("one", "proven"), ("two", "refuted")] == [(a.engine["name"], a.kind) for a in rungs["engines"]]


def test_checked_tested_and_an_engine(tested_module, tested_evaluator):
    """Recorded calls run CHECKED, drawn inputs TESTED, and an engine proving lifts the verdict to PROVEN, counts kept."""
    engine = FakeEngine("proven")
    verdict, rungs = run_ladder(tested_module, prop(tested_module, "addCommutes"), tested_evaluator, "s",
                                calls=[{"args": [1, 2], "result": 3}], provers=[engine], max_inside=10)
    assert ("proven", {"checked": 1, "tested": rungs["tested"].verdict.counts["tested"]}) == (verdict.kind, verdict.counts)
    assert {"checked", "tested", "engines"} == set(rungs)
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
