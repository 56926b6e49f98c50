"""run_report and render_text over fixtures/report (two spec files, one nested, one that does not import)."""

import pytest

from eutaxy.core.canonical import to_json
from eutaxy.core.errors import UserError
from eutaxy.prover.report import find_spec_files, render_text, report_exit_code, run_report

from prover_support import FIXTURES

ROOT = FIXTURES / "report"


@pytest.fixture(scope="module")
def report(toolchain):
    return run_report(ROOT, "report-seed", toolchain=toolchain)


def test_finds_spec_files_skipping_node_modules(tmp_path):
    """Every *.props.ts under the folder, sorted, none from node_modules or hidden folders."""
    assert ["broken/broken.props.ts", "broken/exits.props.ts", "broken/throws.props.ts", "money.props.ts",
            "nested/names.props.ts"] == [
        p.relative_to(ROOT).as_posix() for p in find_spec_files(ROOT)]
    for folder in ("b", "a/deep", "node_modules/pkg", ".cache"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "x.props.ts").write_text("")
    (tmp_path / "a" / "not-a-spec.ts").write_text("")
    assert ["a/deep/x.props.ts", "b/x.props.ts"] == [p.relative_to(tmp_path).as_posix() for p in find_spec_files(tmp_path)]


def test_shape_and_verdicts_by_module(report):
    """Plain data with schemaVersion 1 and kind spec_report; verdicts by module with paths relative to the folder."""
    assert (1, "spec_report", "report-seed") == (report["schemaVersion"], report["kind"], report["seed"])
    by_spec = {m["spec"]: m for m in report["modules"]}
    money = by_spec["money.props.ts"]
    assert "money.ts" == money["module"]
    assert [("roundIsInteger", "tested"), ("roundKeepsSign", "refuted")] == [(p["property"], p["kind"]) for p in money["properties"]]
    refuted = money["properties"][1]
    assert [-0.5] == refuted["counterexample"]["args"]
    assert ("round", [{"name": "cents", "type": "number"}]) == (refuted["function"], refuted["binders"])
    assert "nested/names.ts" == by_spec["nested/names.props.ts"]["module"]
    assert {"tested": 3, "refuted": 1, "unknown": 4} == report["summary"]


def test_unreadable_property_is_unknown_with_the_compilers_error(report):
    """forall over an import that does not resolve is still a property: UNKNOWN (unsupported), the compiler's error beside it."""
    broken = next(m for m in report["modules"] if m["spec"] == "broken/broken.props.ts")
    assert [("never", "unknown", ["unsupported"])] == [(p["property"], p["kind"], p["reasons"]) for p in broken["properties"]]
    assert "the reader could not read the property" in broken["properties"][0]["detail"]
    assert [] == broken["skipped"]
    assert any("TS2307" in d for d in broken["diagnostics"])


def test_spec_that_does_not_import_is_unknown(report):
    """A module that throws when imported makes each property UNKNOWN (unsupported), naming the import failure."""
    throws = next(m for m in report["modules"] if m["spec"] == "broken/throws.props.ts")
    assert "this module fails when imported" in throws["error"]
    assert [("identity", "unknown", ["unsupported"])] == [(p["property"], p["kind"], p["reasons"]) for p in throws["properties"]]


def test_evaluator_that_dies_leaves_the_rest_unknown(report):
    """Code under test that exits Node gives its property, and the ones after it, UNKNOWN (unsupported); earlier verdicts stand."""
    exits = next(m for m in report["modules"] if m["spec"] == "broken/exits.props.ts")
    assert [("fineHolds", "tested"), ("bails", "unknown"), ("after", "unknown")] == [
        (p["property"], p["kind"]) for p in exits["properties"]]
    assert "the evaluator stopped while checking bails" in exits["error"]


def test_deterministic_and_canonical(report, toolchain):
    """The same files and seed give the same canonical JSON (no wall-clock value in it)."""
    again = run_report(ROOT, "report-seed", toolchain=toolchain)
    assert to_json(report) == to_json(again)


def test_render_text(report):
    """The text report names each module and gives one line per property with its reason."""
    text = render_text(report)
    assert "8 properties in 5 spec files: 3 tested, 1 refuted, 4 unknown" in text
    assert "  REFUTED  roundKeepsSign  at TESTED: round(-0.5): claim false" in text
    assert "  TESTED   roundIsInteger  held on 100 distinct inputs" in text
    assert "  UNKNOWN  never  unsupported: the reader could not read the property" in text
    assert "  UNKNOWN  identity  unsupported: the spec file did not import" in text


def test_not_a_directory():
    """A path that is not a folder is the user's error, said plainly."""
    with pytest.raises(UserError, match="is not a directory"):
        run_report(ROOT / "money.ts", "s")


def test_exit_code(report):
    """A refutation fails the report (1); a report of TESTED and UNKNOWN alone passes (0)."""
    assert 1 == report_exit_code(report)
    passing = {"modules": [{"properties": [p for p in m["properties"] if p["kind"] != "refuted"]} for m in report["modules"]]}
    assert 0 == report_exit_code(passing)
