"""``eutaxy prover install lean|smt``: put an engine's pinned toolchain in Eutaxy's cache, checksum-verified.

``lean``: the upstream release file for this platform from the engine's table
(``eutaxy/prover_lean/releases.json``: URL, SHA-256, size), checked before
anything is unpacked and unpacked into ``<cache>/toolchains/lean/<version>``
beside a marker file. ``smt``: the pinned z3-solver wheel, fetched by pip and
checked the same way. A toolchain the engine already finds is reported and not
fetched again; what is reported is what ``prover_status`` reports. A check never
downloads anything.
"""

from __future__ import annotations

import argparse
from typing import Any, Callable, Optional

from eutaxy.cli.exit_codes import EXIT_OK
from eutaxy.cli.output import Output
from eutaxy.core.errors import UserError

__all__ = ["add_prover_parser"]


def add_prover_parser(subparsers: Any, common: argparse.ArgumentParser) -> None:
    prover = subparsers.add_parser("prover", parents=[common], help="install a proving engine's pinned toolchain")
    actions = prover.add_subparsers(dest="prover_command", metavar="ACTION")
    install = actions.add_parser(
        "install", parents=[common],
        help="install an engine's pinned toolchain (lean: Lean 4; smt: z3-solver), checksum-verified, into the cache",
        description=("Install the pinned toolchain of ENGINE into Eutaxy's cache (EUTAXY_CACHE_DIR, else the "
                     "user cache). An installed one is reported and not downloaded again."))
    install.add_argument("engine", choices=("lean", "smt"), metavar="ENGINE", help="lean or smt")
    install.add_argument("--from", dest="source", metavar="URL_OR_DIR",
                         help="a mirror or a directory holding the same file names (smt: a package index or a "
                              "directory of wheels); the checksum check is unchanged")
    install.set_defaults(handler=run_prover_install)

    def missing(args: argparse.Namespace, out: Output) -> int:
        raise UserError("prover needs an action: eutaxy prover install lean|smt")

    prover.set_defaults(handler=missing)


def run_prover_install(args: argparse.Namespace, out: Output) -> int:
    from eutaxy.prover.toolchains import InstallError

    if args.engine == "lean":
        from eutaxy.prover_lean import toolchain as lean

        what = f"Lean {lean.LEAN_VERSION}"
        install: Callable[[Optional[str]], dict[str, Any]] = lean.install
    else:
        from eutaxy.prover_smt import toolchain as smt

        what = f"Z3 (z3-solver {smt.Z3_WHEEL_VERSION})"
        install = smt.install
    try:
        result = install(args.source)
    except (InstallError, OSError) as error:
        raise UserError(f"eutaxy prover install {args.engine}: {error}") from None
    data = {"kind": "prover_install", **result}
    if result["already"]:
        text = f"{what} is already installed at {result['location']} (found in the {result['source']}); nothing fetched."
    else:
        text = (f"Installed {what} at {result['location']} from {result['source']} "
                f"({result['file']}, SHA-256 {result['sha256']} checked).")
    out.report(data, text=text)
    return EXIT_OK
