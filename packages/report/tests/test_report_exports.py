"""The public surface of eutaxy.report."""

import sys
from pathlib import Path

import eutaxy.report

# Core's import rule checker: Bazel puts it on the path (//packages/core:test_support); a run
# from a checkout finds it in core's tests folder.
sys.path.append(str(Path(__file__).resolve().parents[2] / "core" / "tests"))
from import_rules import foreign_imports


def test_report_exports():
    """Text, HTML, JSON and regression emitters, all importable from the package."""
    assert {
        "SCHEMA_VERSION", "error_report", "regression_test_path", "regression_test_source",
        "render_html", "render_json", "render_text", "report_object", "write_regression_test",
    } == set(eutaxy.report.__all__)
    for name in eutaxy.report.__all__:
        assert getattr(eutaxy.report, name) is not None


def test_report_imports_only_core_and_the_standard_library():
    """The layer rule: report may import eutaxy.core and nothing else of Eutaxy."""
    folder = Path(eutaxy.report.__file__).parent
    assert [] == foreign_imports(folder, third_party=("attrs", "cattrs"), eutaxy=("eutaxy.core", "eutaxy.report"))
