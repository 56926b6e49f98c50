"""Externals that change over time, on real workerd: sequences of replies, prefixes, queries.

Three small Workers fetch one external. The first retries a 429 after its Retry-After (a
virtual-time wait) and succeeds on the scripted third reply; its twin that gives up on the
first 429 breaks the invariant, so the sequence is what the verdict turns on. The second
follows a cursor from page to page, the pages scripted either by query string or as a
sequence. The third asks for a path no route answers, which is UNSUPPORTED naming the
method, host and path. A request stays one io effect point with the write ladder, and the
position in a sequence starts over in every run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from eutaxy.cloudflare import at_least_once, create_platform, d1_param, d1_schema, d1_write, define_scenario, external, http
from eutaxy.cloudflare import http_response
from eutaxy.engine.check import check_scenario, replay_scenario

pytestmark = pytest.mark.usefixtures("toolchain")

RETRYING = """
export default {
  async fetch(request: Request): Promise<Response> {
    for (let attempt = 1; attempt <= %(attempts)d; attempt++) {
      const answer = await fetch("https://api.example/v1/items?limit=2");
      if (answer.status !== 429) return new Response(await answer.text(), { status: answer.status });
      const seconds = Number(answer.headers.get("retry-after") ?? "1");
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    }
    return new Response("rate limited", { status: 503 });
  },
};
"""

FOLLOWING = """
interface Env { DB: D1Database }

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    let url = "https://api.example/v1/items";
    for (let page = 0; page < 10; page++) {
      const answer = await fetch(url);
      const body = (await answer.json()) as { items: string[]; next: string | null };
      for (const item of body.items) {
        await env.DB.prepare("INSERT INTO items (id) VALUES (?)").bind(item).run();
      }
      if (!body.next) return new Response("done");
      url = `https://api.example/v1/items?cursor=${body.next}`;
    }
    return new Response("too many pages", { status: 500 });
  },
};
"""

RATE_LIMITED = [
    {
        "method": "GET",
        "path": "/v1/items*",
        "replies": [
            {"status": 429, "headers": {"Retry-After": "2"}},
            {"status": 429, "headers": {"Retry-After": "1"}},
            {"status": 200, "body": {"items": ["a"]}},
        ],
    }
]

PAGE_1 = {"items": ["a", "b"], "next": "c2"}
PAGE_2 = {"items": ["c"], "next": None}


def _project(root: Path, worker: str, *, d1: bool = False) -> Path:
    (root / "worker.ts").write_text(worker)
    config = '{"name": "w", "main": "./worker.ts", "compatibility_date": "2026-01-01"'
    if d1:
        config += ', "d1_databases": [{"binding": "DB", "database_name": "db", "database_id": "db-id"}]'
        (root / "schema.sql").write_text("CREATE TABLE items (id TEXT PRIMARY KEY);\n")
    (root / "wrangler.jsonc").write_text(config + "}")
    return root


def _fetches(result: dict) -> list[tuple[str, int, int]]:
    """(URL, status, virtual ms since the epoch's run start) of each request the external answered."""
    return [
        (e["payload"]["args"]["url"], e["payload"]["result"]["status"], e["time"] - 1767225600000)
        for e in result["effects"]
        if e["target"] == "Fetch:api" and e["kind"] == "result"
    ]


def _retry_scenario(root: Path, attempts: int, faults: int, caller_retries: int = 2) -> dict:
    _project(root, RETRYING % {"attempts": attempts})
    return define_scenario(
        name="rate-limited",
        drive=http([{"path": "/items"}], retries=caller_retries),
        externals=[external("api", "api.example", RATE_LIMITED)],
        invariants=[at_least_once("answered", http_response("/items", ok=True), "args.requestId", ["req-1"])],
        bounds={"maxFaultsPerRun": faults, "maxRedeliveries": 2, "maxConcurrentInvocations": 1, "budgetMs": 600_000},
        root=root,
        source=root / "rate.sim.py",
    )


def test_a_worker_that_waits_out_429s_gets_the_scripted_200_and_every_run_starts_over(tmp_path):
    scenario = _retry_scenario(tmp_path, attempts=4, faults=1)
    with create_platform(scenario) as platform:
        runs = [replay_scenario(scenario, platform, {"faults": [], "turns": []}, seed="rate")["result"] for _ in range(2)]
        verdict = check_scenario(scenario, platform, seed="rate", max_runs=25, budget_ms=600_000)
    first, second = runs
    url = "https://api.example/v1/items?limit=2"
    # Two 429s, waited out in virtual time (2 s, then 1 s), then the 200 that repeats.
    assert [(url, 429, 0), (url, 429, 2001), (url, 200, 3002)] == _fetches(first)
    assert _fetches(first) == _fetches(second), "the sequence starts over in every run"
    [response] = [e for e in first["effects"] if e["op"] == "response" and e["kind"] == "result"]
    assert {"status": 200, "ok": True, "body": '{"items":["a"]}'} == response["payload"]["result"]
    assert "bounded" == verdict["kind"], verdict.get("violation") or verdict.get("cause")
    # A request is still one io point with the write ladder.
    kinds = {tuple(p["kinds"]) for p in verdict["coverage"]["points"] if p["target"] == "Fetch:api"}
    assert {("crash_before", "crash_after", "ambiguous", "error")} == kinds
    assert any("GET /v1/items* -> 429, 429, 200" in a for a in verdict["provenance"]["assumptions"])


def test_a_worker_that_gives_up_on_the_first_429_breaks_the_invariant(tmp_path):
    scenario = _retry_scenario(tmp_path, attempts=1, faults=0, caller_retries=1)
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, seed="rate", max_runs=5, budget_ms=600_000)
    assert "violated" == verdict["kind"]
    statuses = [e["payload"]["result"]["status"] for e in verdict["trace"] if e["target"] == "Fetch:api" and e["kind"] == "result"]
    # The caller resends once; the route's position goes on within the run, so the resend gets the second 429.
    assert [429, 429] == statuses


@pytest.mark.parametrize(
    "routes",
    [
        [
            {"method": "GET", "path": "/v1/items", "query": {"cursor": "c2"}, "body": PAGE_2},
            {"method": "GET", "path": "/v1/items", "body": PAGE_1},
        ],
        [{"method": "GET", "path": "/v1/items", "replies": [{"body": PAGE_1}, {"body": PAGE_2}]}],
    ],
    ids=["by-query", "by-sequence"],
)
def test_a_worker_follows_the_cursor_through_every_page(tmp_path, routes):
    _project(tmp_path, FOLLOWING, d1=True)
    scenario = define_scenario(
        name="pages",
        setup=[d1_schema("DB", "./schema.sql")],
        drive=http([{"path": "/sync"}]),
        externals=[external("api", "api.example", routes)],
        invariants=[at_least_once("every-item", d1_write("DB"), d1_param(0), ["a", "b", "c"])],
        bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 600_000},
        root=tmp_path,
        source=tmp_path / "pages.sim.py",
    )
    with create_platform(scenario) as platform:
        result = replay_scenario(scenario, platform, {"faults": [], "turns": []}, seed="pages")["result"]
        verdict = check_scenario(scenario, platform, seed="pages", max_runs=2, budget_ms=600_000)
    assert ["https://api.example/v1/items", "https://api.example/v1/items?cursor=c2"] == [url for url, _, _ in _fetches(result)]
    [snapshot] = [e for e in result["effects"] if e["kind"] == "snapshot" and e["op"] == "items"]
    assert [{"id": "a"}, {"id": "b"}, {"id": "c"}] == snapshot["payload"]["rows"]
    assert "bounded" == verdict["kind"], verdict.get("violation") or verdict.get("cause")


def test_a_request_no_route_answers_is_unsupported_naming_method_host_and_path(tmp_path):
    _project(tmp_path, FOLLOWING.replace("/v1/items", "/v1/missing"), d1=True)
    scenario = define_scenario(
        name="unrouted",
        setup=[d1_schema("DB", "./schema.sql")],
        drive=http([{"path": "/sync"}]),
        externals=[external("api", "api.example", [{"method": "GET", "pattern": "/v1/items(/[0-9]+)?", "body": PAGE_2}])],
        root=tmp_path,
        source=tmp_path / "unrouted.sim.py",
    )
    with create_platform(scenario) as platform:
        end = replay_scenario(scenario, platform, {"faults": [], "turns": []}, seed="unrouted")["result"]["end"]
    assert ("unsupported", "outbound_request") == (end["kind"], end["cause"])
    assert "outbound fetch GET https://api.example/v1/missing: external api scripts no response for GET /v1/missing" == end["detail"]
