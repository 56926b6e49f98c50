"""The public surface of eutaxy.report."""

import eutaxy.report


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
    import ast
    import sys
    from pathlib import Path

    allowed_third_party = {"attrs", "cattrs"}
    for path in Path(eutaxy.report.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top == "eutaxy":
                    assert name.startswith(("eutaxy.core", "eutaxy.report")), (path.name, name)
                else:
                    assert top in sys.stdlib_module_names or top in allowed_third_party, (path.name, name)
