"""``eutaxy draft [config]``: write a first scenario for a Worker from its wrangler config.

The drafting is the Cloudflare package's (``eutaxy.cloudflare.draft``): it reads the
config, scans the Worker's source as text and builds the scenario file with its holes and
notes. This command finds the config as wrangler does when none is named, writes
``<name>.sim.py`` beside it, or where ``--out`` says (never over an existing file: exit 2
naming it), and says which holes are left to fill. ``--json`` prints the draft as data
instead of writing it (with ``--out``, it writes the file too).
Exit codes: 0 written (or printed), 2 bad input or an existing file, 3 a bug in Eutaxy.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from eutaxy.cli.arguments import add_command
from eutaxy.cli.exit_codes import EXIT_OK
from eutaxy.cli.output import Output

__all__ = ["add_draft_parser", "run_draft"]


def add_draft_parser(subparsers: Any, common: argparse.ArgumentParser) -> None:
    parser = add_command(
        subparsers, common, "draft", handler=run_draft,
        help="write a scenario skeleton from a wrangler config and the Worker module it names",
        description=(
            "Write <name>.sim.py beside the wrangler config: the setup for each binding found, the drive for "
            "the Worker's entry point, the externals it fetches by a literal URL, and the invariants and events "
            "left as todo(...) holes, with notes on every guess. The Worker's source is scanned as text; nothing "
            "is imported or run. An existing file is never replaced; --json prints the draft instead of writing it."
        ),
    )
    parser.add_argument("config", nargs="?", default=None,
                        help="the wrangler config, or its folder (default: found as wrangler finds it, from here up)")
    parser.add_argument("--entry", metavar="PATH", default=None,
                        help="the Worker's entry module (default: the config's main)")
    parser.add_argument("--out", metavar="PATH", default=None,
                        help="write the draft to PATH (a file, or a folder for <name>.sim.py) instead of beside the config; "
                        "also under --json")
    parser.add_argument("--env", metavar="NAME", default=None,
                        help="draft for the wrangler environment NAME (env.NAME in the config), as eutaxy check --env reads it")


def run_draft(args: argparse.Namespace, out: Output) -> int:
    from eutaxy.cloudflare.draft import draft_worker, write_draft

    draft = draft_worker(args.config, cwd=Path.cwd(), entry=args.entry, env=args.env, out=args.out)
    if out.json:
        # --json alone prints the draft instead of writing it; --out asks for the file too.
        written = args.out is not None
        if written:
            write_draft(draft)
        out.report({**draft.to_data(), "written": written}, kind="draft")
        return EXIT_OK
    from eutaxy.engine.scenario_file import display_path

    # Paths as the person at the terminal would type them: relative to where they are.
    path = display_path(write_draft(draft))
    lines = [f"Draft written: {path}"]
    lines.append(f"Holes to fill ({len(draft.holes)}; loading the file fails until each is filled):")
    lines += [f"  line {hole['line']}: TODO({hole['name']}): {hole['hint']}" for hole in draft.holes]
    if draft.notes:
        lines.append("Notes (also in the file):")
        lines += [f"  {note.kind}: {note.text}" for note in draft.notes]
    lines.append(f"Then: eutaxy check {path}")
    out.report({}, text="\n".join(lines))
    return EXIT_OK
