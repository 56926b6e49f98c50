"""A package's imports against its layer rule, read from its sources' text (``ast``).

The core and report tests check their own package with it (report's through
``//packages/core:test_support``); under Bazel the build checks the eutaxy layers too
(tools/bazel/import_check.py), and this adds the third-party packages.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Iterable

__all__ = ["foreign_imports"]


def foreign_imports(folder: Path, *, third_party: Iterable[str], eutaxy: tuple[str, ...]) -> list[str]:
    """The absolute imports in the ``*.py`` files of ``folder`` that are not of the standard
    library, of a ``third_party`` package, or of an eutaxy module under one of the ``eutaxy``
    prefixes; each as ``<file> imports <module>``."""
    allowed = set(sys.stdlib_module_names) | set(third_party)
    found = []
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if not (name.startswith(eutaxy) if top == "eutaxy" else top in allowed):
                    found.append(f"{path.name} imports {name}")
    return found
