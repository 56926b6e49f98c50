"""Static assets served as Cloudflare serves them, by Miniflare's assets in front of the Worker.

A request the assets answer never reaches the Worker: it is recorded as an `Assets:<path>`
response, never faulted; a path `run_worker_first` sends to the Worker, or one no file
answers, reaches it; the Worker's assets binding is an `Assets:<binding>` effect without
faults. A Worker with no fetch() handler whose requests the assets all answer runs.
"""

import shutil
from pathlib import Path

import pytest

from eutaxy.cloudflare import at_least_once, create_platform, d1_param, d1_schema, d1_write, define_scenario, http
from eutaxy.engine.check import check_scenario, replay_scenario

pytestmark = pytest.mark.usefixtures("toolchain")

HERE = Path(__file__).parent
NO_FAULTS = {"faults": [], "turns": []}


def copy(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(HERE / name, root)
    return root


def site_scenario(root: Path, requests: list[dict], setup=None, invariants=()):
    return define_scenario(
        name=root.name,
        root=root,
        source=root / "site.sim.py",
        setup=setup if setup is not None else [d1_schema("DB", "./schema.sql")],
        drive=http(requests),
        invariants=list(invariants),
        bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )


def responses(effects):
    return [
        (e["target"], e["payload"]["args"]["path"], e["payload"]["result"]["status"], e["payload"]["result"]["body"])
        for e in effects
        if e["op"] == "response" and e["kind"] == "result"
    ]


REQUESTS = [
    {"path": "/"},
    {"path": "/about"},
    {"path": "/docs/"},
    {"path": "/api/orders", "method": "POST", "body": {}},
    {"path": "/api/page"},
]


def test_the_assets_answer_their_files_and_the_api_reaches_the_worker(tmp_path):
    root = copy(tmp_path, "assets_site")
    scenario = site_scenario(root, REQUESTS)
    with create_platform(scenario) as platform:
        effects = replay_scenario(scenario, platform, NO_FAULTS, seed="assets")["result"]["effects"]
    assert [
        ("Assets:/", "/", 200, "<!doctype html>\n<h1>home</h1>\n"),
        ("Assets:/about", "/about", 200, "<!doctype html>\n<h1>about</h1>\n"),
        ("Assets:/docs/", "/docs/", 200, "<!doctype html>\n<h1>docs</h1>\n"),
        ("Http:/api/orders", "/api/orders", 201, {"ok": True}),
        ("Http:/api/page", "/api/page", 200, "<!doctype html>\n<h1>home</h1>\n"),
    ] == responses(effects)
    [binding_fetch] = [e for e in effects if e["target"] == "Assets:ASSETS" and e["kind"] == "result"]
    assert {"method": "GET", "path": "/"} == binding_fetch["payload"]["args"]
    assert 200 == binding_fetch["payload"]["result"]["status"]


def test_no_fault_is_injected_at_the_assets_and_the_workers_bug_is_still_found(tmp_path):
    """The exploration faults the Worker's D1 write and response, never the assets' answers nor the binding's fetch."""
    root = copy(tmp_path, "assets_site")
    scenario = site_scenario(
        root, REQUESTS, invariants=[at_least_once("order-recorded", d1_write("DB"), d1_param(0), ["/api/orders"])]
    )
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, max_runs=30, module_state_runs=0)
    assert "violated" == verdict["kind"], verdict.get("cause")
    points = {point["target"] for point in verdict["coverage"]["points"]}
    assert {"D1:DB", "Http:/api/orders"} <= points and not any(target.startswith("Assets:") for target in points), points


def test_a_worker_without_fetch_whose_requests_the_assets_answer_runs(tmp_path):
    """An assets-only Worker: a single-page application's navigation gets index.html; no "no fetch() handler"."""
    root = copy(tmp_path, "assets_only")
    scenario = site_scenario(root, [{"path": "/", "headers": {}}, {"path": "/app/settings", "headers": {"Sec-Fetch-Mode": "navigate"}}], setup=[])
    with create_platform(scenario) as platform:
        effects = replay_scenario(scenario, platform, NO_FAULTS, seed="assets")["result"]["effects"]
    assert [
        ("Assets:/", "/", 200, "<!doctype html>\n<h1>app</h1>\n"),
        ("Assets:/app/settings", "/app/settings", 200, "<!doctype html>\n<h1>app</h1>\n"),
    ] == responses(effects)
