"""``eutaxy mcp``: the Model Context Protocol over stdio, in both protocol eras.

One JSON-RPC message per line on stdin and stdout, logs on stderr, exit when stdin
closes. The official MCP Python SDK (``mcp``) carries the protocol: its low-level
server answers the stateless 2026-07-28 revision (every request carries its version and
client capabilities in ``_meta``; ``server/discover`` names the versions served;
results carry ``resultType``) and the 2025-11-25 revision with the initialize
handshake. The client's first request names the era by carrying ``_meta`` or not.
While it serves, the SDK points file descriptors 0 and 1 away from the wire, so the
Node host and moto, started by a check, cannot write into the protocol.

The tools are :mod:`eutaxy.cli.mcp_tools`, each listed with the JSON Schemas of its
arguments and of its answer (``outputSchema``). A tool runs in a worker thread, one at a
time, so the server keeps reading (and answering malformed lines) while a check runs.
An unknown tool is a protocol error (INVALID_PARAMS); a command that could not run is
a tool result with ``isError``. A request before the 2025-11-25 handshake (other than
``initialize`` and ``ping``) is refused with INVALID_REQUEST and a message saying the
server is not initialized, where the SDK alone would answer INVALID_PARAMS.

A check called with a progress token (``_meta.progressToken``) sends
``notifications/progress`` while it explores: ``progress`` and ``total`` are the seconds
elapsed and the wall-time budget, ``message`` the runs and faults so far. A
``notifications/cancelled`` for it stops the check before its next run (exploring,
shrinking or replaying); the platform is closed as after Ctrl-C, freeing the host and the
one-at-a-time lock for the next call.
"""

from __future__ import annotations

import argparse
import sys
import threading
from typing import Any

from eutaxy.cli.arguments import add_command
from eutaxy.cli.exit_codes import EXIT_OK
from eutaxy.cli.output import Output
from eutaxy.core.errors import UserError

__all__ = ["add_mcp_parser", "build_server", "run_mcp"]

#: The name the server gives itself in ``serverInfo`` and discover results.
SERVER_NAME = "eutaxy"


def add_mcp_parser(subparsers: Any, common: argparse.ArgumentParser) -> None:
    add_command(
        subparsers, common, "mcp", handler=run_mcp,
        help="serve the Model Context Protocol over stdio (tools: check, report, prover_status, ...)",
        description=(
            "Serve the Model Context Protocol over stdio, one JSON-RPC message per line, logs on "
            "stderr; exit when stdin closes. Both eras: the stateless 2026-07-28 revision "
            "(server/discover, _meta on every request) and 2025-11-25 with initialize. Tools: "
            "check, draft, report, goals, prove, prover_status (goals and prove run the Lean "
            "engine). Paths are relative to the directory the server runs in."
        ),
    )


def build_server():
    """The SDK's low-level server with Eutaxy's tools."""
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    from eutaxy.cli.check_command import WATCH, CheckStopped, CheckWatch
    from eutaxy.cli.main import VERSION
    from eutaxy.cli.mcp_tools import TOOLS, call_tool
    from eutaxy.cli.progress import progress_text

    one_at_a_time = threading.Lock()

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[
            types.Tool(name=tool.name, description=tool.description, input_schema=tool.input_schema,
                       output_schema=tool.output_schema)
            for tool in TOOLS.values()
        ])

    async def call(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in TOOLS:
            raise MCPError(types.INVALID_PARAMS, f"unknown tool {params.name!r}; the tools are {', '.join(TOOLS)}")
        cancelled = threading.Event()
        reported = [0.0]

        def on_progress(report: dict[str, Any]) -> None:
            # From the worker thread; progress must grow, so a report no later than the last is dropped.
            elapsed = round(report.get("elapsedMs", 0) / 1000, 1)
            if elapsed <= reported[0] or cancelled.is_set():
                return
            reported[0] = elapsed
            budget = report.get("budgetMs")
            total = budget / 1000 if isinstance(budget, (int, float)) and budget > 0 else None
            try:
                anyio.from_thread.run(ctx.session.report_progress, elapsed, total,
                                      progress_text(report).removeprefix("eutaxy: "))
            except Exception:  # noqa: BLE001 - the request or the loop is gone; the check goes on until stopped
                return

        def before_run() -> None:
            if cancelled.is_set():
                raise CheckStopped("the client cancelled the request")

        def run() -> Any:
            with one_at_a_time:
                token = WATCH.set(CheckWatch(on_progress=on_progress, before_run=before_run))
                try:
                    return call_tool(params.name, params.arguments)
                finally:
                    WATCH.reset(token)

        try:
            # The SDK cancels this task on notifications/cancelled: the worker is left to stop the
            # check before its next run and close the platform, releasing the lock.
            answer = await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            cancelled.set()
            sys.stderr.write(f"eutaxy mcp: {params.name} cancelled by the client; stopping it\n")
            sys.stderr.flush()
            raise
        return types.CallToolResult(
            content=[types.TextContent(text=answer.text)],
            structured_content=answer.data,
            is_error=answer.is_error,
        )

    server = Server(
        SERVER_NAME,
        version=VERSION,
        instructions=("Eutaxy checks Cloudflare Workers and AWS Lambda scenarios deterministically. Call check on a "
                      "<name>.sim.py, read the report, fix the code or the scenario, and check again."),
        on_list_tools=list_tools,
        on_call_tool=call,
    )

    async def initialized_first(ctx: Any, call_next: Any) -> Any:
        """A request the server serves, sent before the handshake: "not initialized" (INVALID_REQUEST)."""
        # The SDK keeps the gate's state on the connection and offers no public reading of it.
        connection = getattr(ctx.session, "_connection", None)
        if (ctx.request_id is not None and ctx.method not in ("initialize", "ping") and connection is not None
                and not connection.initialize_accepted and server.get_request_handler(ctx.method) is not None):
            raise MCPError(types.INVALID_REQUEST,
                           f"server not initialized: {ctx.method} before initialize; send initialize and "
                           "notifications/initialized first (2025-11-25), or _meta with the protocol version on "
                           "every request (2026-07-28)")
        return await call_next(ctx)

    server.middleware.append(initialized_first)
    return server


def run_mcp(args: argparse.Namespace, out: Output) -> int:
    try:
        import anyio
        from mcp.server.stdio import stdio_server
    except ImportError as error:
        raise UserError(f"eutaxy mcp needs the MCP Python SDK (pip install mcp): {error}") from None
    server = build_server()

    async def serve() -> None:
        async with stdio_server() as (wire_in, write_stream):
            # The SDK drops a line it cannot read; JSON-RPC answers it with an error and goes on.
            forward, read_stream = anyio.create_memory_object_stream(0)
            async with anyio.create_task_group() as group:
                group.start_soon(_answer_unreadable, wire_in, forward, write_stream)
                await server.run(read_stream, write_stream, server.create_initialization_options())

    sys.stderr.write("eutaxy mcp: serving on stdio (protocol eras 2026-07-28 and 2025-11-25)\n")
    sys.stderr.flush()
    anyio.run(serve)
    return EXIT_OK


async def _answer_unreadable(wire_in: Any, forward: Any, write_stream: Any) -> None:
    """Passes each message on; a line that is not JSON, or not a JSON-RPC message, gets an error reply.

    Not JSON is PARSE_ERROR with a null id; JSON that is no JSON-RPC message is
    INVALID_REQUEST, with the line's id when it has a usable one.
    """
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    async with forward:
        async for item in wire_in:
            if not isinstance(item, Exception):
                await forward.send(item)
                continue
            code, message, request_id = _unreadable(item, types)
            sys.stderr.write(f"eutaxy mcp: {message}\n")
            sys.stderr.flush()
            reply = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))
            try:
                await write_stream.send(SessionMessage(reply))
            except Exception:  # noqa: BLE001 - the loop has closed the wire; nothing is listening
                return


def _unreadable(error: Exception, types: Any) -> tuple[int, str, Any]:
    """(code, message, id) for a line the SDK could not read as a JSON-RPC message."""
    problems = error.errors() if hasattr(error, "errors") else []
    if any(problem.get("type") == "json_invalid" for problem in problems) or not problems:
        return types.PARSE_ERROR, f"parse error: the line is not JSON ({error.__class__.__name__})", None
    request_id = None
    for problem in problems:
        found = problem.get("input")
        if isinstance(found, dict) and isinstance(found.get("id"), (str, int)) and not isinstance(found.get("id"), bool):
            request_id = found["id"]
            break
    return (types.INVALID_REQUEST,
            "invalid request: expected a JSON-RPC 2.0 message (jsonrpc \"2.0\", a string method, an id for a request)",
            request_id)
