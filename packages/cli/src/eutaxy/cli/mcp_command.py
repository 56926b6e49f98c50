"""``eutaxy mcp``: the Model Context Protocol over stdio, in both protocol eras.

One JSON-RPC message per line on stdin and stdout, logs on stderr, exit when stdin
closes. The official MCP Python SDK (``mcp``) carries the protocol: its low-level
server answers the stateless 2026-07-28 revision (every request carries its version and
client capabilities in ``_meta``; ``server/discover`` names the versions served;
results carry ``resultType``) and the 2025-11-25 revision with the initialize
handshake. The client's first request names the era by carrying ``_meta`` or not.
While it serves, the SDK points file descriptors 0 and 1 away from the wire, so the
Node host and moto, started by a check, cannot write into the protocol.

The tools are :mod:`eutaxy.cli.mcp_tools`. A tool runs in a worker thread, one at a
time, so the server keeps reading (and answering malformed lines) while a check runs.
An unknown tool is a protocol error (INVALID_PARAMS); a command that could not run is
a tool result with ``isError``.
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

    from eutaxy.cli.main import VERSION
    from eutaxy.cli.mcp_tools import TOOLS, call_tool

    one_at_a_time = threading.Lock()

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[
            types.Tool(name=tool.name, description=tool.description, input_schema=tool.input_schema)
            for tool in TOOLS.values()
        ])

    async def call(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in TOOLS:
            raise MCPError(types.INVALID_PARAMS, f"unknown tool {params.name!r}; the tools are {', '.join(TOOLS)}")

        def run():
            with one_at_a_time:
                return call_tool(params.name, params.arguments)

        answer = await anyio.to_thread.run_sync(run)
        return types.CallToolResult(
            content=[types.TextContent(text=answer.text)],
            structured_content=answer.data,
            is_error=answer.is_error,
        )

    return Server(
        SERVER_NAME,
        version=VERSION,
        instructions=("Eutaxy checks Cloudflare Workers and AWS Lambda scenarios deterministically. Call check on a "
                      "<name>.sim.py, read the report, fix the code or the scenario, and check again."),
        on_list_tools=list_tools,
        on_call_tool=call,
    )


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
