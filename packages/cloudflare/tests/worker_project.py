"""A Worker project for the tests that read its config and scenario without running it."""

from pathlib import Path
from typing import Any

from eutaxy.cloudflare import define_scenario


def write_project(folder: Path, config: str) -> Path:
    """An empty Worker (``worker.ts``) and ``config`` as its ``wrangler.jsonc``, in ``folder``."""
    (folder / "worker.ts").write_text("export default {};\n")
    (folder / "wrangler.jsonc").write_text(config)
    return folder


def scenario_in(project: Path, **fields: Any) -> dict:
    """``define_scenario`` over ``project``, named ``s``, with ``fields`` (the drive, the setup, ...)."""
    return define_scenario(**{"name": "s", "root": project, "source": project / "s.sim.py", **fields})
