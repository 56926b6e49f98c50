"""D1 setup steps.

Before each run the runtime drops every user table of the binding's database
and applies the schema file again, through the real binding and outside the
effect log, so every run starts from the schema alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eutaxy.core.errors import UserError

__all__ = ["d1_schema"]


def d1_schema(binding: str, path: str | Path) -> dict[str, Any]:
    """Reset D1 binding ``binding`` to the schema in ``path`` (relative to the scenario) before each run."""
    if not isinstance(binding, str) or not binding:
        raise UserError(f"d1_schema: binding must be a binding name such as 'DB', got {binding!r}")
    if isinstance(path, Path):
        path = str(path)
    if not isinstance(path, str) or not path:
        raise UserError(f"d1_schema: path must name a .sql file, got {path!r}")
    return {"kind": "d1_schema", "binding": binding, "path": path}
