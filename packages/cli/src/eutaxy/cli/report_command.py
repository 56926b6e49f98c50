"""``eutaxy report [dir]``: run the spec ladder on every spec file under a directory.

The ladder lives in ``eutaxy.prover.report`` (``run_report(directory, seed) -> dict`` and
``render_text(result) -> str``); this command only finds it, runs it and prints. Spec
verdicts stay apart from scenario verdicts: a refuted or conflicting spec exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from eutaxy.cli.exit_codes import EXIT_FAILED, EXIT_OK
from eutaxy.cli.output import Output
from eutaxy.core.errors import UserError

__all__ = ["add_report_parser", "run_spec_report"]

#: Spec verdict kinds that fail the command, as a refutation fails a check.
FAILING_KINDS = frozenset({"refuted", "conflict"})

#: How deep the result is searched for failing verdicts; a bound on the walk.
DEPTH_MAX = 12

#: The seed when none is given: a constant, so the same files give the same verdicts on
#: every machine (a directory's name would differ between checkouts).
DEFAULT_SEED = "eutaxy-report"


def add_report_parser(subparsers: Any, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser(
        "report",
        parents=[common],
        help="run the spec ladder on every spec file under a directory",
        description="Run the spec ladder (CHECKED, TESTED, PROVEN) on every spec file under DIR.",
    )
    parser.add_argument("directory", nargs="?", default=".", metavar="DIR", help="where to look (default: .)")
    parser.add_argument("--seed", default=DEFAULT_SEED, help=f"the seed for generated inputs (default: {DEFAULT_SEED})")
    parser.set_defaults(handler=run_spec_report)


def run_spec_report(args: argparse.Namespace, out: Output) -> int:
    directory = Path(args.directory)
    if not directory.is_dir():
        raise UserError(f"{args.directory}: no such directory")
    run_report, render_text = _ladder()
    use_pinned_node()
    result = run_report(directory, args.seed)
    if not isinstance(result, dict):
        raise TypeError(f"eutaxy.prover.report.run_report returned {type(result).__name__}, not a dict")
    text = render_text(result) if render_text is not None else json.dumps(result, indent=2, sort_keys=True)
    out.report(result, kind="spec_report", text=text)
    return EXIT_FAILED if spec_fails(result) else EXIT_OK


def spec_fails(result: dict) -> bool:
    """A refuted or conflicting spec fails the command, as a refutation fails a check."""
    summary = result.get("summary")
    if isinstance(summary, dict) and any(summary.get(kind) for kind in FAILING_KINDS):
        return True
    return _has_failing_verdict(result, 0)


def use_pinned_node() -> None:
    """Point the ladder at Eutaxy's pinned Node toolchain (installed once into the cache).

    The prover may not import the Cloudflare package that owns the toolchain, so the
    CLI, which may import both, hands it over through the environment the prover reads.
    """
    if os.environ.get("EUTAXY_NODE_MODULES"):
        return
    try:
        from eutaxy.cloudflare.toolchain import ToolchainError, find_node_toolchain
    except ImportError:
        return
    try:
        found = find_node_toolchain()
    except ToolchainError as error:
        raise UserError(str(error)) from None
    os.environ["EUTAXY_NODE_MODULES"] = str(found.node_modules)
    os.environ.setdefault("EUTAXY_NODE", str(found.node))


def _ladder():
    try:
        from eutaxy.prover import report
    except ImportError as error:
        raise UserError(f"the spec ladder is not available (eutaxy.prover.report: {error})") from None
    run_report = getattr(report, "run_report", None)
    if not callable(run_report):
        raise UserError("the spec ladder is not available (eutaxy.prover.report has no run_report)")
    render_text = getattr(report, "render_text", None)
    return run_report, render_text if callable(render_text) else None


def _has_failing_verdict(value: Any, depth: int) -> bool:
    if depth > DEPTH_MAX:
        return False
    if isinstance(value, dict):
        if value.get("kind") in FAILING_KINDS:
            return True
        return any(_has_failing_verdict(item, depth + 1) for item in value.values())
    if isinstance(value, list):
        return any(_has_failing_verdict(item, depth + 1) for item in value)
    return False
