"""``eutaxy prover install smt``: put the pinned Z3 (the z3-solver wheel, checksum-verified) in Eutaxy's cache.

The SMT engine finds it there (``<cache>/toolchains/smt/<version>/site``) when no
z3 of the pinned version is importable; a check never downloads anything. The
Lean engine is not built yet, so ``lean`` is refused with that reason.
"""

from __future__ import annotations

import argparse
from typing import Any

from eutaxy.cli.exit_codes import EXIT_OK
from eutaxy.cli.output import Output
from eutaxy.core.errors import UserError

__all__ = ["add_prover_parser"]


def add_prover_parser(subparsers: Any, common: argparse.ArgumentParser) -> None:
    prover = subparsers.add_parser("prover", parents=[common], help="install a proving engine's pinned toolchain")
    actions = prover.add_subparsers(dest="prover_command", metavar="ACTION")
    install = actions.add_parser(
        "install", parents=[common],
        help="install an engine's pinned toolchain (smt: z3-solver, checksum-verified) into the cache",
        description=("Install the pinned toolchain of ENGINE into Eutaxy's cache (EUTAXY_CACHE_DIR, else the "
                     "user cache). An installed one is reported and not downloaded again."))
    install.add_argument("engine", choices=("smt", "lean"), metavar="ENGINE", help="smt (lean is not built yet)")
    install.add_argument("--from", dest="source", metavar="URL_OR_DIR",
                         help="a mirror index or a directory holding the same wheel file")
    install.set_defaults(handler=run_prover_install)

    def missing(args: argparse.Namespace, out: Output) -> int:
        raise UserError("prover needs an action: eutaxy prover install smt")

    prover.set_defaults(handler=missing)


def run_prover_install(args: argparse.Namespace, out: Output) -> int:
    if args.engine == "lean":
        raise UserError("eutaxy prover install lean: the Lean engine is not built in this release")
    from eutaxy.prover_smt import toolchain

    try:
        result = toolchain.install(args.source)
    except (toolchain.InstallError, OSError) as error:
        raise UserError(f"eutaxy prover install smt: {error}") from None
    data = {"kind": "prover_install", **result}
    if result["already"]:
        text = f"Z3 (z3-solver {result['version']}) is already installed at {result['location']}."
    else:
        text = (f"Installed z3-solver {result['version']} at {result['location']} "
                f"({result['file']}, SHA-256 {result['sha256']} checked).")
    out.report(data, text=text)
    return EXIT_OK
