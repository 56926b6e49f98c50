"""The package's public surface: every name in __all__ exists, and core stays pure."""

from __future__ import annotations

import pathlib

from import_rules import foreign_imports

import eutaxy.core as core

SOURCE = pathlib.Path(core.__file__).parent


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
    assert [] == foreign_imports(SOURCE, third_party=("attrs", "cattrs"), eutaxy=("eutaxy.core", "eutaxy.spec"))
