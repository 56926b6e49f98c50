"""The package's public surface: every name in __all__ exists, and core stays pure."""

from __future__ import annotations

import ast
import pathlib

import eutaxy.core as core

SOURCE = pathlib.Path(core.__file__).parent
ALLOWED_IMPORTS = {"attrs", "cattrs", "eutaxy", "__future__"}


def test_all_names_exist():
    """Each re-exported name resolves, in the package and in each module's __all__."""
    for name in core.__all__:
        assert hasattr(core, name), name
    for path in SOURCE.glob("*.py"):
        if path.name in ("__init__.py", "protocol.py"):
            continue
        module = __import__(f"eutaxy.core.{path.stem}", fromlist=["__all__"])
        for name in getattr(module, "__all__", []):
            assert hasattr(module, name), f"{path.name}: {name}"


def test_core_imports_only_attrs_cattrs_and_the_standard_library():
    """core is pure: no third-party import but attrs and cattrs (verdict_data, the JSON edge), no eutaxy layer above core."""
    import sys

    stdlib = set(sys.stdlib_module_names)
    for path in SOURCE.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in stdlib or top in ALLOWED_IMPORTS, f"{path.name} imports {name}"
                if top == "eutaxy":
                    assert name.startswith(("eutaxy.core", "eutaxy.spec")), f"{path.name} imports {name}"
