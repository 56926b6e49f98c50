"""eutaxy.report: the text report, the HTML timeline, the versioned JSON report and the regression-test emitter.

Reports read plain verdict data and know no platform; the CLI and the platform packages
choose which to print and where the regression test goes.
"""

from eutaxy.report.html import render_html
from eutaxy.report.json import SCHEMA_VERSION, error_report, render_json, report_object
from eutaxy.report.regression import regression_test_path, regression_test_source, write_regression_test
from eutaxy.report.text import render_text

__all__ = [
    "SCHEMA_VERSION",
    "error_report",
    "regression_test_path",
    "regression_test_source",
    "render_html",
    "render_json",
    "render_text",
    "report_object",
    "write_regression_test",
]
