"""``eutaxy report [dir]``: run the spec ladder on every spec file under a directory.

The ladder lives in ``eutaxy.prover.report`` (``run_report``, ``render_text``,
``report_exit_code``, ``input_problems``); this command only finds it, runs it and
prints. Spec verdicts stay apart from scenario verdicts: a refuted or conflicting spec
(or one short of ``--min-inside``) exits 1, and a report that checked less than it was
given (a spec file that does not import or compile, no spec file, no verdict) exits 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from eutaxy.cli.arguments import add_command, whole_number
from eutaxy.cli.config import config_for, with_configured_provers
from eutaxy.cli.exit_codes import EXIT_INPUT
from eutaxy.cli.output import Output
from eutaxy.cli.provers import add_prover_arguments, node_toolchain, provers_from_args
from eutaxy.core.errors import UserError

__all__ = ["add_report_parser", "run_spec_report"]

#: The seed when none is given: a constant, so the same files give the same verdicts on
#: every machine (a directory's name would differ between checkouts).
SEED_DEFAULT = "eutaxy-report"


def add_report_parser(subparsers: Any, common: argparse.ArgumentParser) -> None:
    parser = add_command(
        subparsers, common, "report", handler=run_spec_report,
        help="run the spec ladder on every spec file under a directory",
        description=("Run the spec ladder on every spec file under DIR: TESTED on generated inputs, then PROVEN "
                     "by the engines --prover names."),
    )
    parser.add_argument("directory", nargs="?", default=".", metavar="DIR", help="where to look (default: .)")
    parser.add_argument("--seed", default=SEED_DEFAULT, help=f"the seed for generated inputs (default: {SEED_DEFAULT})")
    parser.add_argument("--min-inside", type=whole_number, default=None, metavar="N",
                        help="fail (exit 1) a property decided on fewer than N distinct inputs inside its claim")
    parser.add_argument("--show-inputs", type=whole_number, default=0, metavar="N",
                        help="print the first N inputs evaluated for each property")
    parser.add_argument("--goals", action="store_true",
                        help="write the Lean engine's open goals beside each spec file as <spec>.goals.lean "
                             "(runs the lean engine)")
    add_prover_arguments(parser)


def run_spec_report(args: argparse.Namespace, out: Output) -> int:
    directory = Path(args.directory)
    if not directory.is_dir():
        raise UserError(f"{args.directory}: no such directory")
    report = _ladder()
    provers = provers_from_args(with_configured_provers(args, config_for(directory)))
    if getattr(args, "goals", False) and not any(p.name == "lean" for p in provers):
        from eutaxy.prover_lean import LeanProver

        provers.append(LeanProver())
    result = report.run_report(directory, args.seed, min_inside=args.min_inside, show_inputs=args.show_inputs,
                               toolchain=node_toolchain(), provers=provers)
    text = report.render_text(result)
    if getattr(args, "goals", False):
        result["goalFiles"], note = _write_goals(provers)
        text = text.rstrip("\n") + "\n" + note
    out.report(result, kind="spec_report", text=text)
    code = report.report_exit_code(result)
    if code == EXIT_INPUT and out.json:
        for problem in report.input_problems(result):
            out.note(f"eutaxy report: {problem}")
    return code


def _write_goals(provers: list[Any]) -> tuple[list[dict[str, Any]], str]:
    """``--goals``: each module Lean answered gets its goal file written (or removed when none is open)."""
    from eutaxy.prover_lean.goals import write_goals

    lean = next(p for p in provers if p.name == "lean")
    done = write_goals(lean.goals)
    if not lean.goals:
        why = lean.available().get("unavailable", "Lean answered for no module")
        return done, f"Goal files: none written, since Lean gave no answer ({why}).\n"
    lines = [f"Goal files: {d['action']} {d['file']}" + (f" ({len(d['goals'])} open)" if d["goals"] else "")
             for d in done]
    return done, "\n".join(lines or ["Goal files: no open goal."]) + "\n"


def spec_kinds(result: dict) -> list[str]:
    """The kind of every property's spec verdict in a ladder result (``run_report``'s or a check's ``specs``)."""
    return [prop["kind"] for module in result.get("modules") or () for prop in module.get("properties") or ()]


def _ladder():
    try:
        from eutaxy.prover import report
    except ImportError as error:
        raise UserError(f"the spec ladder is not available (eutaxy.prover.report: {error})") from None
    return report
