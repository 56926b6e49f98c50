"""A Worker project written for a test, and the scenario over it with what the test does not care about filled."""

from pathlib import Path
from typing import Any, Mapping, Optional

import json

from eutaxy.cloudflare import at_least_once_per_message, create_platform, d1_param, d1_schema, d1_write, define_scenario, queue
from eutaxy.engine.check import replay_scenario

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


# --- callee Workers' projects (test_callee_*_workerd.py) -----------------------------------


def write_files(folder: Path, files: Mapping[str, str]) -> None:
    """``files`` (by name) in ``folder``, made if need be."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)


def worker_config(name: str, **more: Any) -> str:
    """A Worker's wrangler config (JSON): ``name``, ``./worker.js`` and a fixed compatibility date, with ``more``."""
    return json.dumps({"name": name, "main": "./worker.js", "compatibility_date": "2026-01-01", **more})


def write_shop(root: Path, source: str, **more: Any) -> None:
    """The shop Worker the callee tests call from, in ``root/shop``: ``source``, a D1 ``DB`` with a
    ``log`` table (``schema.sql``), the service binding ``STOCK`` to Worker ``stock``'s ``Stock``, and ``more`` config."""
    write_files(root / "shop", {
        "worker.js": source,
        "schema.sql": "CREATE TABLE log (line TEXT NOT NULL);",
        "wrangler.jsonc": worker_config(
            "shop",
            d1_databases=[{"binding": "DB", "database_name": "shop", "database_id": "shop-db"}],
            services=[{"binding": "STOCK", "service": "stock", "entrypoint": "Stock"}],
            **more,
        ),
    })


def replay(scenario: dict, faults: Optional[list] = None, seed: str = "callees") -> dict:
    """One run of ``scenario`` with ``faults`` (none by default) and no turns: its result."""
    with create_platform(scenario) as platform:
        return replay_scenario(scenario, platform, {"faults": faults or [], "turns": []}, seed=seed)["result"]


def logged_lines(result: dict) -> list[dict]:
    """The JSON lines a run left in D1 ``DB``'s ``log`` table (its snapshot, sorted), parsed."""
    rows = [e for e in result["effects"] if e["target"] == "D1:DB" and e["op"] == "log" and e["kind"] == "snapshot"][0]["payload"]["rows"]
    return [json.loads(row["line"]) for row in rows if row["line"].startswith("{")]
