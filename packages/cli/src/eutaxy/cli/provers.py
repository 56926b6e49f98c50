"""``--prover`` and ``--no-cache``: which engines the PROVEN rung runs, for ``eutaxy report`` and ``eutaxy check``;
and the Node toolchain the ladder runs on (:func:`node_toolchain`).

``--prover smt`` runs the SMT engine (:mod:`eutaxy.prover_smt`); ``--prover
lean`` the Lean engine (:mod:`eutaxy.prover_lean`), which needs the pinned Lean
(``eutaxy prover install lean``); ``--prover all`` names both. The flag may be repeated. An engine named but not installed
answers UNKNOWN (unavailable) with the command that installs it.

``--prover-steps N`` is the SMT engine's step limit (Z3's rlimit, per property;
``prover-steps`` in the project config), and ``--prover-deadline SECONDS`` the
wall-clock time one solver call may take before its process is killed.
"""

from __future__ import annotations

import argparse
from typing import Any

from eutaxy.core.errors import UserError

ENGINES = ("smt", "lean")
CHOICES = ENGINES + ("all",)
#: Z3 takes its rlimit as an unsigned 32-bit number.
PROVER_STEPS_MAX = 2**32 - 1
#: A day: a deadline longer than any report is meant to run.
PROVER_DEADLINE_S_MAX = 86_400


def _steps(text: str) -> int:
    from eutaxy.cli.arguments import whole_number

    return whole_number(text, PROVER_STEPS_MAX)


def _deadline(text: str) -> int:
    from eutaxy.cli.arguments import whole_number

    return whole_number(text, PROVER_DEADLINE_S_MAX)


def add_prover_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--prover", action="append", choices=CHOICES, metavar="ENGINE",
                        help="run the PROVEN rung with ENGINE: smt (Z3), lean (Lean 4; UNKNOWN unavailable until "
                             "`eutaxy prover install lean`) or all (repeatable; default: none)")
    parser.add_argument("--no-cache", action="store_true",
                        help="prove again instead of reusing the engines' cached answers")
    parser.add_argument("--prover-steps", type=_steps, default=None, metavar="N",
                        help="the smt engine's step limit per property (Z3's rlimit; default: the config's "
                             "prover-steps, else 4000000); a changed limit proves again")
    parser.add_argument("--prover-deadline", type=_deadline, default=None, metavar="SECONDS",
                        help="kill a solver run still going after SECONDS of wall clock: UNKNOWN (gave_up) "
                             "(default: 60)")


def provers_from_args(args: argparse.Namespace) -> list:
    """The engines the flags name, in the order smt, lean, each once."""
    named = set(getattr(args, "prover", None) or ())
    if "all" in named:
        named = set(ENGINES)
    out: list[Any] = []
    if "smt" in named:
        from eutaxy.prover_smt import SmtProver

        limits: dict[str, Any] = {}
        if getattr(args, "prover_steps", None):
            limits["rlimit"] = args.prover_steps
        if getattr(args, "prover_deadline", None):
            limits["deadline_s"] = float(args.prover_deadline)
        out.append(SmtProver(cache_results=not getattr(args, "no_cache", False), **limits))
    if "lean" in named:
        from eutaxy.prover_lean import LeanProver

        out.append(LeanProver(cache_results=not getattr(args, "no_cache", False)))
    return out


def node_toolchain() -> Any:
    """The pinned Node toolchain as the prover's value (``eutaxy.prover.node.NodeToolchain``).

    There is one finder, ``eutaxy.cloudflare.toolchain.find_node_toolchain``:
    ``EUTAXY_NODE_MODULES`` when set (how Bazel hands tests its copy), else Eutaxy's cache,
    installing the pinned toolchain there first when it is missing. The prover may not
    import the Cloudflare package, so the CLI finds the toolchain and hands it over as a
    value (``toolchain=``), never through ``os.environ``. The corpus gates and the bench
    scripts call this too, so they run from a checkout after ``eutaxy toolchain install``.

    Raises:
        UserError: the toolchain is neither installed nor installable, or lacks a package the ladder needs.
    """
    try:
        from eutaxy.cloudflare.toolchain import ToolchainError, find_node_toolchain
    except ImportError as error:
        raise UserError(f"the Node toolchain finder (eutaxy.cloudflare.toolchain) is not installed: {error}") from None
    from eutaxy.prover.node import toolchain_at

    try:
        found = find_node_toolchain()
    except ToolchainError as error:
        raise UserError(str(error)) from None
    return toolchain_at(node=found.node, node_modules=found.node_modules)
