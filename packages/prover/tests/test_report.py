"""run_report and render_text over fixtures/report (two spec files, one nested, one that does not import)."""

import pytest

from eutaxy.core.canonical import to_json
from eutaxy.core.errors import UserError
from eutaxy.prover.reader import read_specs
from eutaxy.prover.report import find_spec_files, render_text, report_exit_code, run_report

from prover_support import FIXTURES

ROOT = FIXTURES / "report"


@pytest.fixture(scope="module")
def report(toolchain):
    return run_report(ROOT, "report-seed", toolchain=toolchain)


def _module(report, spec):
    """The report's module for the spec file ``spec`` (relative to the folder)."""
    return next(m for m in report["modules"] if m["spec"] == spec)


def _verdicts(module):
    """Each property of ``module`` with its verdict kind, in order."""
    return [(p["property"], p["kind"]) for p in module["properties"]]


def test_finds_spec_files_skipping_node_modules(tmp_path):
    """Every *.props.ts under the folder, sorted, none from node_modules or hidden folders."""
    assert ["broken/broken.props.ts", "broken/exits.props.ts", "broken/loops.props.ts", "broken/throws.props.ts",
            "money.props.ts", "nested/names.props.ts"] == [
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
    assert [("roundIsInteger", "tested"), ("roundKeepsSign", "refuted")] == _verdicts(money)
    refuted = money["properties"][1]
    assert [-0.5] == refuted["counterexample"]["args"]
    assert ("round", [{"name": "cents", "type": "number"}]) == (refuted["function"], refuted["binders"])
    assert "nested/names.ts" == by_spec["nested/names.props.ts"]["module"]
    assert {"tested": 6, "refuted": 1, "unknown": 4} == report["summary"]


def test_unreadable_property_is_unknown_with_the_compilers_error(report):
    """forall over an import that does not resolve is still a property: UNKNOWN (unsupported), the compiler's error beside it."""
    broken = _module(report, "broken/broken.props.ts")
    assert [("never", "unknown", ["unsupported"])] == [(p["property"], p["kind"], p["reasons"]) for p in broken["properties"]]
    assert "the reader could not read the property" in broken["properties"][0]["detail"]
    assert [] == broken["skipped"]
    assert any("TS2307" in d for d in broken["diagnostics"])


def test_spec_that_does_not_import_is_unknown_with_the_whole_message(report):
    """A module that throws when imported makes each property UNKNOWN (unsupported); the module's error is the whole message."""
    throws = _module(report, "broken/throws.props.ts")
    assert throws["error"].startswith("the spec file did not import: Error: this module fails when imported")
    assert "throws.ts:5" in throws["error"], "the frame in the user's file, mapped back to its source"
    assert [("identity", "unknown", ["unsupported"])] == [(p["property"], p["kind"], p["reasons"]) for p in throws["properties"]]


def test_code_that_exits_the_evaluator_costs_only_its_property(report):
    """Code under test that calls process.exit gives its property UNKNOWN (unsupported), naming the input; the rest go on."""
    exits = _module(report, "broken/exits.props.ts")
    assert [("fineHolds", "tested"), ("bails", "unknown"), ("after", "tested")] == _verdicts(exits)
    bails = exits["properties"][1]
    assert ["unsupported"] == bails["reasons"]
    assert "on input bail(1): ensures ended the evaluator" in bails["detail"] and "exit code 3" in bails["detail"]
    assert [1] == bails["tested"]["stopped"]["args"]


def test_a_runaway_evaluation_is_gave_up_naming_the_input(report):
    """An input the function loops on ends its property as UNKNOWN (gave_up) naming it; the properties before and after keep their verdicts."""
    loops = _module(report, "broken/loops.props.ts")
    assert [("beforeLoop", "tested"), ("spins", "unknown"), ("afterLoop", "tested")] == _verdicts(loops)
    spins = loops["properties"][1]
    assert ["gave_up"] == spins["reasons"]
    assert "on input settle(3): ensures ran past the 1000 ms limit on one evaluation" in spins["detail"]
    assert {"kind": "timeout", "phase": "ensures", "ms": 1000} == spins["tested"]["stopped"]["outcome"]
    assert not loops.get("error")


def test_deterministic_and_canonical(report, toolchain):
    """The same files and seed give the same canonical JSON (no wall-clock value in it), whether the report
    read the spec files itself or was handed a reading shared between reports (``read=``)."""
    specs = find_spec_files(ROOT)
    again = run_report(ROOT, "report-seed", toolchain=toolchain, read=read_specs(specs, toolchain))
    assert to_json(report) == to_json(again)
    with pytest.raises(ValueError, match="other spec files"):
        run_report(ROOT, "report-seed", toolchain=toolchain, read=read_specs(specs[:1], toolchain))


def test_tested_short_of_its_target_says_so(report):
    """TESTED on fewer inputs than the target says how many in its word; a whole small domain does not."""
    money = _module(report, "money.props.ts")
    text = render_text(report)
    loops = _module(report, "broken/loops.props.ts")
    before = loops["properties"][0]
    assert 1 == before["counts"]["tested"] and 100 == before["tested"]["target"]
    assert "  TESTED (1 of 100) beforeLoop" in text
    assert 100 == money["properties"][0]["counts"]["tested"]


def test_render_text(report):
    """The text report names each module and gives one line per property with its reason."""
    text = render_text(report)
    assert "11 properties in 6 spec files: 6 tested, 1 refuted, 4 unknown" in text
    assert "  REFUTED  roundKeepsSign  at TESTED: round(-0.5): claim false" in text
    assert "  TESTED   roundIsInteger  held on 100 distinct inputs" in text
    assert "  UNKNOWN  never  unsupported: the reader could not read the property" in text
    assert "  UNKNOWN  identity  unsupported: the spec file did not import" in text


def test_not_a_directory(toolchain):
    """A path that is not a folder is the user's error, said plainly."""
    with pytest.raises(UserError, match="is not a directory"):
        run_report(ROOT / "money.ts", "s", toolchain=toolchain)


def test_exit_code(report):
    """A spec file that did not import or compile is exit 2; then a refutation fails (1); TESTED and UNKNOWN alone pass (0)."""
    assert 2 == report_exit_code(report)
    clean = [m for m in report["modules"] if not m.get("error") and not m["diagnostics"]]
    assert 1 == report_exit_code({"modules": clean})
    passing = {"modules": [{**m, "properties": [p for p in m["properties"] if p["kind"] != "refuted"]} for m in clean]}
    assert 0 == report_exit_code(passing)
    unknown_only = {"modules": [{**m, "properties": [p for p in m["properties"] if p["kind"] == "unknown"]} for m in clean]}
    assert 2 == report_exit_code(unknown_only), "no property reached a verdict"


def test_whole_errors_in_text_mode(report):
    """Text mode prints an import failure and a compiler message whole, and says why the report is not a pass."""
    text = render_text(report)
    assert "  error: the spec file did not import: Error: this module fails when imported\n" in text
    assert "not a pass: the report checked less than it was given" in text
    assert "TS2307" in text


def test_empty_directory_is_not_a_pass(toolchain, tmp_path):
    """A folder with no spec file is exit 2, said plainly: nothing checked is never a pass."""
    empty = run_report(tmp_path, "s", toolchain=toolchain)
    assert 2 == report_exit_code(empty)
    assert f"no spec file (*.props.ts) under {tmp_path}" in render_text(empty)


def test_min_inside_fails_a_property_short_of_it(report, toolchain):
    """--min-inside N marks a forall property decided on fewer than N inputs inside its claim, which fails the report."""
    strict = run_report(ROOT / "nested", "report-seed", toolchain=toolchain, min_inside=1000)
    assert all(p.get("belowMinInside") for m in strict["modules"] for p in m["properties"])
    assert 1 == report_exit_code(strict)
    assert 0 == report_exit_code(run_report(ROOT / "nested", "report-seed", toolchain=toolchain, min_inside=10))


def test_show_inputs(toolchain):
    """show_inputs keeps each property's first inputs, in the order evaluated, and the text prints them."""
    shown = run_report(ROOT / "nested", "report-seed", toolchain=toolchain, show_inputs=3)
    [prop] = shown["modules"][0]["properties"]
    assert 3 == len(prop["tested"]["inputs"]) and [""] == prop["tested"]["inputs"][0]
    assert '      input greet("")' in render_text(shown)
