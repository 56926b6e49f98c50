"""A Worker project written for a test, and the scenario over it with what the test does not care about filled."""

from pathlib import Path
from typing import Any, Mapping, Optional

from eutaxy.cloudflare import at_least_once_per_message, d1_param, d1_schema, d1_write, define_scenario, queue

#: A Worker with no handler, for the tests that read the config and never run it.
EMPTY_WORKER = {"worker.ts": "export default {};\n"}


def write_project(folder: Path, config: str, files: Optional[Mapping[str, str]] = None) -> Path:
    """``files`` (by name; an empty ``worker.ts`` when none) and ``config`` as ``wrangler.jsonc``, in ``folder``."""
    for name, text in (EMPTY_WORKER if files is None else files).items():
        (folder / name).write_text(text)
    (folder / "wrangler.jsonc").write_text(config)
    return folder


def scenario_in(project: Path, name: str = "s", **fields: Any) -> dict:
    """``define_scenario`` over ``project``, as if written in ``<name>.sim.py`` there, with ``fields``."""
    return define_scenario(name=name, root=project, source=project / f"{name}.sim.py", **fields)


def jobs_scenario(root: Path, name: str, body: dict) -> dict:
    """One job message ``body`` on queue ``jobs``, recorded in D1 ``DB`` by its ``jobId`` at least
    once, with no injected fault and three redeliveries."""
    drive = queue("jobs", [{"body": body}])
    return scenario_in(
        root, name,
        setup=[d1_schema("DB", "./schema.sql")],
        drive=drive,
        invariants=[at_least_once_per_message("every-job", drive, d1_write("DB"), d1_param(0), "jobId")],
        bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 3, "budgetMs": 60_000},
    )
