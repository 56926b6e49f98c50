"""``eutaxy toolchain install``: put the pinned Node toolchain in Eutaxy's cache.

The Cloudflare platform needs Node 24, Miniflare and workerd at pinned versions; this
command is the one place that downloads them (a check never does). It reports what it
installed and where, or that the toolchain was already there.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from eutaxy.cli.exit_codes import EXIT_OK
from eutaxy.cli.output import Output
from eutaxy.core.errors import UserError

__all__ = ["add_toolchain_parser", "run_toolchain_install"]


def add_toolchain_parser(subparsers: Any, common: argparse.ArgumentParser) -> None:
    toolchain = subparsers.add_parser("toolchain", parents=[common], help="manage the pinned Node toolchain")
    actions = toolchain.add_subparsers(dest="toolchain_command", metavar="ACTION")
    install = actions.add_parser(
        "install",
        parents=[common],
        help="install Node 24, Miniflare and workerd (pinned, checksum-verified) into the cache",
        description=(
            "Install the pinned Node toolchain the Cloudflare platform runs on into Eutaxy's "
            "cache (EUTAXY_CACHE_DIR, else the user cache). An installed toolchain is reported "
            "and not downloaded again."
        ),
    )
    install.add_argument("--cache-dir", metavar="DIR", help="install under DIR instead of the cache")
    install.set_defaults(handler=run_toolchain_install)
    toolchain.set_defaults(handler=_missing_action(toolchain))


def run_toolchain_install(args: argparse.Namespace, out: Output) -> int:
    try:
        from eutaxy.cloudflare import toolchain
    except ImportError as error:
        raise UserError(f"the Cloudflare platform (eutaxy.cloudflare) is not installed: {error}") from None
    failure = getattr(toolchain, "ToolchainError", None) or OSError
    cache = Path(args.cache_dir) if args.cache_dir else None
    try:
        result = toolchain.install_toolchain(cache, log=out.note)
    except (failure, OSError) as error:
        raise UserError(f"the toolchain could not be installed: {error}") from None
    installed = list(result.installed)
    location = str(result.location)
    data = {"kind": "toolchain_install", "installed": installed, "location": location, "already": bool(result.already)}
    if result.already:
        text = f"The toolchain is already installed at {location}."
    else:
        text = "\n".join([f"Installed {len(installed)} packages at {location}:"] + [f"  {spec}" for spec in installed])
    out.report(data, text=text)
    return EXIT_OK


def _missing_action(parser: argparse.ArgumentParser):
    def handler(args: argparse.Namespace, out: Output) -> int:
        raise UserError("toolchain needs an action: eutaxy toolchain install")

    return handler
