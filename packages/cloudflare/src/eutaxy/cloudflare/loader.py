"""Loading a ``*.sim.py`` Workers scenario by path (engine's one loader, for cloudflare)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eutaxy.engine.scenario_file import import_scenario

__all__ = ["load_scenario"]


def load_scenario(path: str | Path) -> dict[str, Any]:
    """Import the scenario file at ``path`` and return its module-level ``scenario``.

    Raises:
        UserError: the file is missing, does not run, binds no scenario dict, or is a
            scenario for another platform.
    """
    return import_scenario(path, platform="cloudflare")
