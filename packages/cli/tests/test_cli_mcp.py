"""``eutaxy mcp`` over a real subprocess, in both protocol eras.

The 2026-07-28 era is driven by the MCP SDK's client in ``auto`` mode (it probes
``server/discover`` and adopts it); the 2025-11-25 era by the same client in ``legacy``
mode (the initialize handshake). Each calls check on the corpus case
queue-duplicate-write (copied to a scratch folder, so the regression test is written
there) with a small run cap. Malformed lines are written by hand on the raw pipe, since
no client sends them: each gets a JSON-RPC error and the next request is still answered.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import anyio
import jsonschema
import pytest

mcp = pytest.importorskip("mcp", reason="eutaxy mcp needs the MCP SDK (requirements.lock pins it)")
from mcp import Client, StdioServerParameters  # noqa: E402 - after importorskip, which names the missing SDK

REPO = Path(__file__).resolve().parents[3] if (Path(__file__).resolve().parents[3] / "corpus").is_dir() else None
CASE = "queue-duplicate-write"
MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {}}
TOOL_NAMES = {"check", "draft", "report", "goals", "prove", "prover_status"}


def corpus_case() -> Path:
    for root in (Path.cwd(), Path(__file__).absolute().parents[3], REPO):
        if root is not None and (root / "corpus" / "planted-bugs" / CASE).is_dir():
            return root / "corpus" / "planted-bugs" / CASE
    raise AssertionError(f"corpus/planted-bugs/{CASE} is not in the test's files")


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    shutil.copytree(corpus_case(), tmp_path / CASE, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    for scenario in (f"{CASE}.sim.py", f"fixed/{CASE}-fixed.sim.py"):
        shutil.copy(corpus_case() / scenario, tmp_path / CASE / scenario)
    return tmp_path


def server(workdir: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "eutaxy.cli", "mcp"],
                                 env=dict(os.environ), cwd=str(workdir))


def check_arguments(scenario: str) -> dict:
    return {"scenario": scenario, "seed": "s1", "maxRuns": 40, "budgetMs": 600000}


async def drive(params: StdioServerParameters, mode: str, scenario: str) -> dict:
    async with Client(params, mode=mode) as client:
        listed = await client.list_tools()
        checked = await client.call_tool("check", check_arguments(scenario))
        missing = await client.call_tool("check", {"scenario": "no-such.sim.py"})
        bad = await client.call_tool("check", {"scenario": f"{CASE}/{CASE}.sim.py", "maxRuns": "ten"})
        draft = await client.call_tool("draft", {"config": CASE})
        no_config = await client.call_tool("draft", {"config": "wrangler.jsonc"})
        status = await client.call_tool("prover_status", {})
        no_spec = await client.call_tool("prove", {"spec": "none.props.ts"})
        report = await client.call_tool("report", {"directory": CASE})
        answers = {"check": checked, "missing": missing, "bad": bad, "draft": draft, "no_config": no_config,
                   "prover_status": status, "prove": no_spec, "report": report}
        assert_answers_fit_output_schemas(listed.tools, answers)
        return {"session": client.session, "version": client.protocol_version, "server": client.server_info,
                "tools": {tool.name for tool in listed.tools}, **answers}


def assert_answers_fit_output_schemas(tools, answers: dict) -> None:
    """Every tool lists an output schema, and every answer's structured content fits its tool's
    (tool errors included; the SDK client checks only the answers that are no error)."""
    schemas = {tool.name: tool.output_schema for tool in tools}
    assert set(schemas) == TOOL_NAMES and all(schema and schema["type"] == "object" for schema in schemas.values()), schemas
    for name, answer in answers.items():
        tool = name if name in TOOL_NAMES else {"missing": "check", "bad": "check", "no_config": "draft"}[name]
        jsonschema.validate(answer.structured_content, schemas[tool])
    # The schemas are not vacuous: a verdict without its evidence, or another tool's answer, does not fit.
    verdict = dict(answers["check"].structured_content)
    for wrong in ({k: v for k, v in verdict.items() if k != "provenance"}, answers["prover_status"].structured_content):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(wrong, schemas["check"])


def test_modern_era_discovers_lists_and_checks_a_planted_bug(workdir):
    answers = anyio.run(drive, server(workdir), "auto", f"{CASE}/{CASE}.sim.py")
    assert answers["session"].discover_result is not None, "the client adopted server/discover: the 2026-07-28 era"
    assert answers["version"] == "2026-07-28"
    assert answers["server"].name == "eutaxy"
    assert answers["tools"] == TOOL_NAMES
    check = answers["check"]
    assert not check.is_error
    assert check.structured_content["kind"] == "violated"
    written = check.structured_content["regressionTest"]  # relative to the server's directory, as given
    assert (workdir / written).is_file() and (workdir / written).parent == workdir / CASE
    assert "VIOLATED" in check.content[0].text and f"Regression test written: {written}" in check.content[0].text
    assert check.content[0].text.endswith(f"\nRun it: {sys.executable} -m pytest {written}\n"), check.content[0].text[-300:]
    assert_tool_errors(answers)


def test_legacy_era_initializes_lists_and_checks_the_fixed_twin(workdir):
    answers = anyio.run(drive, server(workdir), "legacy", f"{CASE}/fixed/{CASE}-fixed.sim.py")
    assert answers["session"].initialize_result is not None, "the initialize handshake: the 2025-11-25 era"
    assert answers["version"] == "2025-11-25"
    assert answers["tools"] == TOOL_NAMES
    check = answers["check"]
    assert not check.is_error
    assert check.structured_content["kind"] == "bounded"
    assert "regressionTest" not in check.structured_content
    assert_tool_errors(answers)


def assert_tool_errors(answers: dict) -> None:
    assert answers["missing"].is_error and "no-such.sim.py" in answers["missing"].content[0].text
    assert answers["bad"].is_error and "'maxRuns'" in answers["bad"].content[0].text
    assert "a whole number" in answers["bad"].content[0].text
    draft = answers["draft"]
    assert not draft.is_error
    assert ("draft", False) == (draft.structured_content["kind"], draft.structured_content["written"])
    assert ["events", "invariants"] == [hole["name"] for hole in draft.structured_content["holes"]]
    assert "Not written" in draft.content[0].text and "todo(" in draft.content[0].text
    assert answers["no_config"].is_error and "wrangler.jsonc: the wrangler config does not exist" in answers["no_config"].content[0].text


def raw_session(workdir: Path, lines: list[str]) -> list[dict]:
    """Writes the lines one by one, reading the answers to those with an id (or none) as they come."""
    process = subprocess.Popen([sys.executable, "-m", "eutaxy.cli", "mcp"], cwd=workdir, text=True,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    answers = []
    try:
        for line in lines:
            process.stdin.write(line + "\n")
            process.stdin.flush()
            if '"method":"notifications/' in line:
                continue
            # An answer that never comes fails here rather than hanging the test.
            ready, _, _ = select.select([process.stdout], [], [], 60)
            assert ready, f"no answer to {line} within a minute"
            answers.append(json.loads(process.stdout.readline()))
        process.stdin.close()
        assert process.wait(timeout=60) == 0, "the server exits when stdin closes"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return answers


def request(request_id: int, method: str, params: dict | None = None) -> str:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message, separators=(",", ":"))


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_a_malformed_request_gets_an_error_and_the_server_keeps_serving(workdir, era):
    if era == "2026-07-28":
        opening = [request(1, "server/discover", {"_meta": MODERN_META})]
        meta = {"_meta": MODERN_META}
    else:
        opening = [request(1, "initialize", {"protocolVersion": era, "capabilities": {},
                                             "clientInfo": {"name": "raw", "version": "0"}}),
                   '{"jsonrpc":"2.0","method":"notifications/initialized"}']
        meta = {}
    answers = raw_session(workdir, [
        *opening,
        "this is not json",
        '{"jsonrpc":"2.0","id":7,"method":42}',
        request(8, "no/such/method", dict(meta)),
        request(9, "tools/call", {"name": "no_such_tool", "arguments": {}, **meta}),
        request(10, "tools/call", {"name": "prove", "arguments": {}, **meta}),
        request(11, "tools/list", dict(meta)),
    ])
    opened, parse, invalid, method, tool, goals, listed = answers
    assert "result" in opened
    assert parse == {"jsonrpc": "2.0", "id": None, "error": parse["error"]} and parse["error"]["code"] == -32700
    assert invalid["id"] == 7 and invalid["error"]["code"] == -32600
    assert method["id"] == 8 and method["error"]["code"] == -32601
    assert tool["id"] == 9 and tool["error"]["code"] == -32602 and "no_such_tool" in tool["error"]["message"]
    assert goals["result"]["isError"] is True and "spec" in goals["result"]["content"][0]["text"]
    assert {t["name"] for t in listed["result"]["tools"]} == TOOL_NAMES
    if era == "2026-07-28":
        assert listed["result"]["resultType"] == "complete"
        assert listed["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "eutaxy"


def test_a_request_before_the_handshake_is_refused_as_not_initialized(workdir):
    """2025-11-25: tools/list and tools/call before initialize get INVALID_REQUEST naming the
    missing handshake (not INVALID_PARAMS); ping is allowed; after the handshake both are served."""
    initialize = request(4, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                           "clientInfo": {"name": "raw", "version": "0"}})
    answers = raw_session(workdir, [
        request(1, "tools/list"),
        request(2, "tools/call", {"name": "prover_status", "arguments": {}}),
        request(3, "ping"),
        initialize,
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        request(5, "tools/list"),
    ])
    listed, called, ping, opened, listed_after = answers
    for answer, request_id in ((listed, 1), (called, 2)):
        assert answer["id"] == request_id and answer["error"]["code"] == -32600, answer
        assert answer["error"]["message"].startswith("server not initialized:"), answer
    assert ping == {"jsonrpc": "2.0", "id": 3, "result": {}}
    assert opened["result"]["protocolVersion"] == "2025-11-25"
    assert {t["name"] for t in listed_after["result"]["tools"]} == TOOL_NAMES


def long_scenario(workdir: Path) -> str:
    """The fixed twin of the case with twelve messages, two at a time and up to three faults a run:
    more schedules than a check explores in minutes, so the budget (ten minutes) would end it."""
    fixed = workdir / CASE / "fixed" / f"{CASE}-fixed.sim.py"
    source = fixed.read_text()
    events = "".join(f'        {{"body": {{"orderId": "o-{i}", "amountCents": {100 * i}}}}},\n' for i in range(1, 13))
    start = source.index('        {"body": {"orderId": "o-1"')
    end = source.index("    ],\n)", start)
    source = source[:start] + events + source[end:]
    source = source.replace('"maxFaultsPerRun": 1', '"maxFaultsPerRun": 3').replace(
        '"maxConcurrentInvocations": 1', '"maxConcurrentInvocations": 2')
    long = fixed.with_name("long.sim.py")
    long.write_text(source)
    return str(long.relative_to(workdir))


async def cancel_a_long_check(params: StdioServerParameters, mode: str, scenario: str) -> dict:
    """Calls check with a progress callback, cancels it after two progress notifications, then asks
    prover_status; the events in the order they happened, and how long prover_status took."""
    events: list[tuple] = []
    async with Client(params, mode=mode) as client:
        await client.list_tools()
        # Its first call loads Z3 and looks for Lean (about a second on a loaded machine): made
        # before the check, so the time after the cancellation is the check stopping and its host closing.
        started = time.monotonic()
        await client.call_tool("prover_status", {})
        events.append(("prover_status first", round(time.monotonic() - started, 2)))
        progressed = anyio.Event()

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            events.append(("progress", progress, total, message))
            if sum(1 for event in events if event[0] == "progress") >= 2:
                progressed.set()

        async def checking() -> None:
            await client.call_tool("check", {"scenario": scenario, "maxRuns": 1000000, "budgetMs": 600000},
                                   progress_callback=on_progress)
            events.append(("check answered",))

        async with anyio.create_task_group() as group:
            group.start_soon(checking)
            with anyio.fail_after(300):
                await progressed.wait()
            events.append(("cancel",))
            group.cancel_scope.cancel()
        started = time.monotonic()
        # Generous for a loaded machine; without the cancellation the check holds the server for ten minutes.
        with anyio.fail_after(120):
            status = await client.call_tool("prover_status", {})
        events.append(("prover_status", round(time.monotonic() - started, 2)))
        return {"events": events, "status": status, "version": client.protocol_version}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_long_check_reports_progress_and_a_cancelled_one_frees_the_server(workdir, mode):
    """An SDK client sees progress while a check runs; cancelling it stops the check before its next
    run and closes its host, so the next call (prover_status) is answered at once rather than when
    the ten-minute budget ends."""
    answers = anyio.run(cancel_a_long_check, server(workdir), mode, long_scenario(workdir))
    events = answers["events"]
    assert answers["version"] == {"auto": "2026-07-28", "legacy": "2025-11-25"}[mode]
    kinds = [event[0] for event in events]
    assert kinds[-2:] == ["cancel", "prover_status"] and "check answered" not in kinds, events
    progress = [event for event in events if event[0] == "progress"]
    assert len(progress) >= 2
    values = [event[1] for event in progress]
    assert values == sorted(set(values)), "progress grows with each notification"
    assert all(event[2] == 600.0 for event in progress), "the total is the budget in seconds"
    assert all(event[3].startswith("runs ") and " faults " in event[3] and "budget" in event[3] for event in progress)
    assert not answers["status"].is_error and answers["status"].structured_content["kind"] == "prover_status"
    sys.stderr.write(f"prover_status answered {events[-1][1]} s after the cancellation ({mode}; "
                     f"its first call, before the check, took {events[0][1]} s)\n")
