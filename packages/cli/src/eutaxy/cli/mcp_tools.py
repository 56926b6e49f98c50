"""The tools ``eutaxy mcp`` serves, as plain functions of their arguments and the repository's files.

Each tool maps its JSON arguments to the command line of the ``eutaxy`` command it
stands for, runs that command in this process with ``--json`` and returns a
:class:`ToolAnswer`: the command's JSON object (structured content) beside its text.
A verdict is an answer whatever it says (BOUNDED, VIOLATED, UNSUPPORTED; a spec report
with refutations); a command that could not run, or an argument that does not fit, is
an answer with ``is_error`` and a message the caller can act on. Nothing here knows the
protocol: :mod:`eutaxy.cli.mcp_command` serves these over it.
"""

from __future__ import annotations

import io
import json
from typing import Any, Callable, Mapping

import attrs

from eutaxy.cli.exit_codes import EXIT_INPUT, EXIT_INTERNAL

__all__ = ["TOOLS", "Tool", "ToolAnswer", "call_tool"]

#: The engines ``--prover`` accepts, for the tools that run the PROVEN rung.
_ENGINES = ["smt", "lean", "all"]


@attrs.frozen
class ToolAnswer:
    """What a tool returns: the text, the JSON report (or None), and whether it is a tool error."""

    text: str
    data: dict | None
    is_error: bool = False


@attrs.frozen
class Tool:
    """A tool: its name, description, the JSON Schemas of its arguments and of its answer's
    structured content (``output_schema``: what every answer holds, a tool error included), and
    the function that runs it."""

    name: str
    description: str
    input_schema: dict
    output_schema: dict[str, Any]
    run: Callable[[Mapping[str, Any]], ToolAnswer]


class ArgumentProblem(Exception):
    """An argument that does not fit the tool's schema; the message names it and what was expected."""


def _error(message: str) -> ToolAnswer:
    return ToolAnswer(text=message, data={"kind": "error", "message": message}, is_error=True)


# -- arguments ------------------------------------------------------------------------------

_STRING = {"type": "string"}
_BOOLEAN = {"type": "boolean"}
_POSITIVE = {"type": "integer", "minimum": 1}
_PROVERS = {"type": "array", "items": {"type": "string", "enum": _ENGINES},
            "description": "engines for the PROVEN rung: smt (Z3), lean (Lean 4, once installed), all"}


def _schema(properties: dict, required: tuple[str, ...] = ()) -> dict:
    schema: dict = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


def _checked(tool: str, schema: dict, arguments: Mapping[str, Any]) -> dict:
    """The arguments, each checked against the tool's schema (the subset of JSON Schema used here)."""
    if not isinstance(arguments, Mapping):
        raise ArgumentProblem(f"{tool}: arguments must be an object, got {type(arguments).__name__}")
    properties = schema["properties"]
    unknown = sorted(set(arguments) - set(properties))
    if unknown:
        raise ArgumentProblem(f"{tool}: unknown argument {', '.join(map(repr, unknown))}; "
                              f"expected one of {', '.join(sorted(properties)) or '(none)'}")
    for name in schema.get("required", ()):
        if name not in arguments:
            raise ArgumentProblem(f"{tool}: argument {name!r} is required ({properties[name].get('description', '')})"
                                  .replace(" ()", ""))
    for name, value in arguments.items():
        _check_value(f"{tool}: argument {name!r}", properties[name], value)
    return dict(arguments)


def _check_value(where: str, schema: dict, value: Any) -> None:
    kind = schema["type"]
    if kind == "string":
        if not isinstance(value, str) or not value.strip():
            raise ArgumentProblem(f"{where}: expected a non-empty string, found {json.dumps(value)}")
        if "enum" in schema and value not in schema["enum"]:
            raise ArgumentProblem(f"{where}: expected one of {', '.join(schema['enum'])}, found {json.dumps(value)}")
    elif kind == "boolean":
        if not isinstance(value, bool):
            raise ArgumentProblem(f"{where}: expected true or false, found {json.dumps(value)}")
    elif kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ArgumentProblem(f"{where}: expected a whole number, found {json.dumps(value)}")
        if value < schema.get("minimum", value):
            raise ArgumentProblem(f"{where}: expected a number of at least {schema['minimum']}, found {value}")
    elif kind == "array":
        if not isinstance(value, list):
            raise ArgumentProblem(f"{where}: expected a list, found {json.dumps(value)}")
        for item in value:
            _check_value(where, schema["items"], item)


# -- answers ----------------------------------------------------------------------------------

#: A command that could not run, or an argument that does not fit: ``kind`` and a message.
_ERROR_ANSWER = {
    "type": "object",
    "properties": {"kind": {"enum": ["error", "internal_error"]}, "message": {"type": "string"}},
    "required": ["kind", "message"],
}


def _answers(*shapes: dict[str, Any]) -> dict[str, Any]:
    """The output schema of a tool whose answer is one of ``shapes`` or a tool error."""
    return {"type": "object", "oneOf": [*shapes, _ERROR_ANSWER]}


def _report_shape(kinds: list[str], properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """A report object (``eutaxy ... --json``): schemaVersion 1 and one of ``kinds``."""
    return {
        "type": "object",
        "properties": {"schemaVersion": {"const": 1}, "kind": {"enum": kinds}, **properties},
        "required": ["schemaVersion", "kind", *required],
    }


_OBJECT = {"type": "object"}
_ARRAY = {"type": "array"}
_VERDICT_ANSWER = {
    "type": "object",
    "oneOf": [
        _report_shape(["violated"], {"scenario": _STRING, "platform": _STRING, "violation": _OBJECT, "trace": _ARRAY,
                               "schedule": _OBJECT, "keptEvents": _ARRAY, "provenance": _OBJECT,
                               "regressionTest": {"type": "string", "description": "the regression test written"}},
                ("scenario", "violation", "trace", "schedule", "keptEvents", "provenance")),
        _report_shape(["bounded"], {"scenario": _STRING, "platform": _STRING, "provenance": _OBJECT}, ("scenario", "provenance")),
        _report_shape(["unsupported"], {"scenario": _STRING, "platform": _STRING, "cause": _OBJECT, "provenance": _OBJECT},
                ("scenario", "cause", "provenance")),
        _ERROR_ANSWER,
    ],
}
_SPEC_REPORT_ANSWER = _answers(_report_shape(["spec_report"], {"modules": _ARRAY, "goalFiles": _ARRAY}, ("modules",)))
_DRAFT_ANSWER = _answers(_report_shape(["draft"], {"path": _STRING, "written": _BOOLEAN, "source": _STRING, "holes": _ARRAY,
                                             "notes": _ARRAY}, ("path", "written", "source", "holes")))
_PROVER_STATUS_ANSWER = _answers(_report_shape(["prover_status"], {"toolchains": {
    "type": "object",
    "additionalProperties": {"type": "object", "properties": {"installed": _BOOLEAN}, "required": ["installed"]},
}}, ("toolchains",)))


# -- running a command ------------------------------------------------------------------------

#: Command-line flags, in the words of the tool arguments they came from.
_FLAG_WORDS = {"--max-runs": "maxRuns", "--budget-ms": "budgetMs", "--seed": "seed", "--min-inside": "minInside",
               "--prover": "provers"}


def _run_command(argv: list[str], *, verdict_kinds: frozenset[str], render: Callable[[dict], str]) -> ToolAnswer:
    """Runs ``eutaxy ARGV --json`` here; its object is the answer, a tool error unless its kind is a verdict."""
    import sys

    from eutaxy.cli.main import main

    stdout, stderr = io.StringIO(), io.StringIO()
    code = main([*argv, "--json"], stdout=stdout, stderr=stderr)
    # The command's notes are the server's log.
    sys.stderr.write(stderr.getvalue())
    sys.stderr.flush()
    try:
        data = json.loads(stdout.getvalue())
    except ValueError:
        return _error(f"eutaxy {argv[0]} printed no JSON report (exit {code}); its messages: {stderr.getvalue()[-800:]}")
    if data.get("kind") in verdict_kinds and code not in (EXIT_INTERNAL,):
        try:
            text = render(data)
        except Exception as error:  # noqa: BLE001 - the JSON stands; the text is a convenience
            text = f"(the text report could not be drawn: {type(error).__name__}: {error})\n" + json.dumps(data)
        return ToolAnswer(text=text, data=data)
    message = str(data.get("message") or f"eutaxy {argv[0]} exited {code}")
    for flag, word in _FLAG_WORDS.items():
        message = message.replace(f"argument {flag}", f"argument {word}")
    if code == EXIT_INTERNAL:
        message += " (a bug in Eutaxy, not in the arguments: the traceback is in the server's log on stderr)"
    elif code != EXIT_INPUT:
        message += f" (exit {code})"
    return ToolAnswer(text=message, data=data, is_error=True)


def _prover_flags(arguments: Mapping[str, Any]) -> list[str]:
    return [flag for engine in arguments.get("provers", ()) for flag in ("--prover", engine)]


# -- the tools ----------------------------------------------------------------------------------

_CHECK_SCHEMA = _schema({
    "scenario": {**_STRING, "description": "the scenario file (<name>.sim.py), relative to the server's directory"},
    "seed": {**_STRING, "description": "the exploration seed (default: the scenario file's name)"},
    "maxRuns": {**_POSITIVE, "description": "stop after this many runs"},
    "budgetMs": {**_POSITIVE, "description": "wall-time budget in milliseconds"},
    "exhaustive": {**_BOOLEAN, "description": "run every schedule within the bounds instead of sampling"},
    "audit": {**_BOOLEAN, "description": "rerun a sample of runs and compare their effect logs byte for byte"},
    "regression": {**_BOOLEAN, "description": "write the regression test on a violation (default true)"},
    "provers": _PROVERS,
}, required=("scenario",))


def _check(arguments: Mapping[str, Any]) -> ToolAnswer:
    from eutaxy.report.text import render_text

    argv = ["check", arguments["scenario"]]
    for name, flag in (("seed", "--seed"), ("maxRuns", "--max-runs"), ("budgetMs", "--budget-ms")):
        if name in arguments:
            argv += [flag, str(arguments[name])]
    argv += ["--exhaustive"] if arguments.get("exhaustive") else []
    argv += ["--audit"] if arguments.get("audit") else []
    argv += [] if arguments.get("regression", True) else ["--no-regression"]
    argv += _prover_flags(arguments)

    def render(data: dict) -> str:
        from pathlib import Path

        from eutaxy.cli.check_command import regression_command

        text = render_text(data)
        if data.get("regressionTest"):
            text += f"\nRegression test written: {data['regressionTest']}\n"
            text += f"Run it: {regression_command(Path(data['regressionTest']))}\n"
        return text

    return _run_command(argv, verdict_kinds=frozenset({"bounded", "violated", "unsupported"}), render=render)


_REPORT_SCHEMA = _schema({
    "directory": {**_STRING, "description": "where to look for spec files (default: the server's directory)"},
    "seed": {**_STRING, "description": "the seed for generated inputs (default: eutaxy-report)"},
    "minInside": {**_POSITIVE, "description": "fail a property decided on fewer distinct inputs inside its claim"},
    "provers": _PROVERS,
})


def _report(arguments: Mapping[str, Any]) -> ToolAnswer:
    from eutaxy.prover.report import render_text

    argv = ["report", arguments.get("directory", ".")]
    for name, flag in (("seed", "--seed"), ("minInside", "--min-inside")):
        if name in arguments:
            argv += [flag, str(arguments[name])]
    argv += _prover_flags(arguments)
    return _run_command(argv, verdict_kinds=frozenset({"spec_report"}), render=render_text)


_DRAFT_SCHEMA = _schema({
    "config": {**_STRING, "description": "the wrangler config or its folder (default: found from the server's directory up)"},
    "worker": {**_STRING, "description": "the Worker's entry module (default: the config's main)"},
    "env": {**_STRING, "description": "the wrangler environment to draft for"},
    "write": {**_STRING, "description": "where to write the scenario file (never over an existing one); "
                                         "without it nothing is written"},
})


def _draft(arguments: Mapping[str, Any]) -> ToolAnswer:
    argv = ["draft"]
    if "config" in arguments:
        argv.append(arguments["config"])
    for name, flag in (("worker", "--entry"), ("env", "--env"), ("write", "--out")):
        if name in arguments:
            argv += [flag, arguments[name]]

    def render(data: dict[str, Any]) -> str:
        holes = "".join(f"  line {hole['line']}: TODO({hole['name']}): {hole['hint']}\n" for hole in data["holes"])
        where = f"Written to {data['path']}" if data.get("written") else f"Not written (it would go to {data['path']})"
        return f"{where}. Holes to fill:\n{holes}\n{data['source']}"

    return _run_command(argv, verdict_kinds=frozenset({"draft"}), render=render)


def _prover_status(arguments: Mapping[str, Any]) -> ToolAnswer:
    """The installed toolchains: the pinned Node toolchain, Z3 for the SMT engine, Lean for the Lean engine."""
    toolchains: dict[str, dict] = {}
    try:
        from eutaxy.cloudflare.toolchain import ToolchainError, find_node_toolchain

        try:
            found = find_node_toolchain(install=False)
            toolchains["node"] = {"installed": True, "location": str(found.node_modules)}
        except ToolchainError as error:
            toolchains["node"] = {"installed": False, "why": str(error), "install": "eutaxy toolchain install"}
    except ImportError as error:
        toolchains["node"] = {"installed": False, "why": f"eutaxy.cloudflare is not installed: {error}"}
    try:
        from eutaxy.prover_smt.toolchain import status as smt_status

        toolchains["smt"] = smt_status()
    except ImportError as error:
        toolchains["smt"] = {"installed": False, "why": f"eutaxy.prover_smt is not installed: {error}"}
    try:
        from eutaxy.prover_lean.toolchain import status as lean_status

        toolchains["lean"] = lean_status()
    except ImportError as error:
        toolchains["lean"] = {"installed": False, "why": f"eutaxy.prover_lean is not installed: {error}"}
    lines = []
    for name, status in toolchains.items():
        state = "installed" if status["installed"] else "not installed"
        detail = status.get("location") or status.get("version") or status.get("why", "")
        hint = f" (install: {status['install']})" if status.get("install") else ""
        lines.append(f"{name}: {state}: {detail}{hint}")
    data = {"schemaVersion": 1, "kind": "prover_status", "toolchains": toolchains}
    return ToolAnswer(text="\n".join(lines) + "\n", data=data)


def _goals(arguments: Mapping[str, Any]) -> ToolAnswer:
    """``eutaxy report DIR --goals``: the goal files written or removed are the answer's ``goalFiles``."""
    from eutaxy.prover.report import render_text

    argv = ["report", arguments.get("directory", "."), "--goals"]
    argv += ["--seed", str(arguments["seed"])] if "seed" in arguments else []

    def render(data: dict[str, Any]) -> str:
        files = data.get("goalFiles") or []
        lines = [f"{f['action']} {f['file']} ({len(f['goals'])} open)" for f in files]
        return render_text(data) + ("Goal files:\n  " + "\n  ".join(lines) + "\n" if lines else
                                    "No goal file written or removed (Lean gave no answer or left no goal open).\n")

    return _run_command(argv, verdict_kinds=frozenset({"spec_report"}), render=render)


def _prove(arguments: Mapping[str, Any]) -> ToolAnswer:
    """The Lean engine on one spec file's module (its directory's report, kept to that spec file)."""
    from pathlib import Path

    from eutaxy.prover.report import render_text

    spec = Path(arguments["spec"])
    if not spec.name.endswith(".props.ts") or not spec.is_file():
        return _error(f"prove: {spec} is not a spec file (expected an existing <name>.props.ts)")
    argv = ["report", str(spec.parent), "--prover", "lean"]
    argv += ["--seed", str(arguments["seed"])] if "seed" in arguments else []
    answer = _run_command(argv, verdict_kinds=frozenset({"spec_report"}), render=render_text)
    if answer.data is None or answer.data.get("kind") != "spec_report":
        return answer
    modules = [m for m in answer.data["modules"] if m.get("spec") == spec.name]
    if not modules:
        return _error(f"prove: the report on {spec.parent} holds no module for {spec.name}")
    data = {**answer.data, "modules": modules}
    return ToolAnswer(text=render_text(data), data=data)


TOOLS: dict[str, Tool] = {tool.name: tool for tool in (
    Tool("check", "Explore a scenario (<name>.sim.py) under injected faults and check its invariants. The verdict "
         "is BOUNDED (no violation within the bounds reached; not a proof), VIOLATED (a replayed, shrunk trace; "
         "regressionTest names the regression test written, and the text's last line, Run it:, the command that "
         "runs it) or UNSUPPORTED (with its cause). With a progress token, progress is notified while it runs "
         "(runs, faults, seconds of the budget); a cancelled check stops and frees its host.",
         _CHECK_SCHEMA, _VERDICT_ANSWER, _check),
    Tool("draft", "Draft a first scenario (<name>.sim.py) for a Worker from its wrangler config and the Worker module, "
         "scanned as text: setup, drive, externals, and the events and invariants left as todo(...) holes with notes "
         "on every guess. Answers the draft as data (source, holes, notes); writes it only where write says.",
         _DRAFT_SCHEMA, _DRAFT_ANSWER, _draft),
    Tool("report", "Run the spec ladder (CHECKED, TESTED, and PROVEN with provers) on every spec file under a "
         "directory; refuted or conflicting properties are verdicts in the report.", _REPORT_SCHEMA,
         _SPEC_REPORT_ANSWER, _report),
    Tool("goals", "Write the Lean engine's open goals beside each spec file under a directory as "
         "<spec>.goals.lean (runs the spec ladder with the lean engine; without Lean installed nothing is written "
         "and the answer says why). Copied to <spec>.props.lean and filled in, a goal file is a supplied proof.",
         _schema({"directory": _STRING, "seed": _STRING}), _SPEC_REPORT_ANSWER, lambda arguments: _goals(arguments)),
    Tool("prove", "Check one spec file's module with the Lean engine, using the proofs supplied beside it "
         "(<spec>.props.lean); a refused or stale proof file is UNKNOWN with the reason, never PROVEN.",
         _schema({"spec": _STRING, "seed": _STRING}, required=("spec",)), _SPEC_REPORT_ANSWER,
         lambda arguments: _prove(arguments)),
    Tool("prover_status", "The installed toolchains: the pinned Node toolchain, Z3 for the SMT engine, Lean.",
         _schema({}), _PROVER_STATUS_ANSWER, _prover_status),
)}


def call_tool(name: str, arguments: Mapping[str, Any] | None) -> ToolAnswer:
    """Runs tool ``name``; an unknown name raises KeyError (a protocol error, not a tool error)."""
    tool = TOOLS[name]
    try:
        checked = _checked(name, tool.input_schema, arguments or {})
    except ArgumentProblem as problem:
        return _error(str(problem))
    return tool.run(checked)
