"""What every command's argument parsing shares: how a command is added, and number flags.

One place for each, so ``eutaxy check``, ``eutaxy report`` and the pytest plugin read a
number flag the same way and refuse a bad one with the same words (``--max-runs`` and
``--eutaxy-max-runs`` both stop at the longest a JavaScript timer waits).
"""

from __future__ import annotations

import argparse
from typing import Any, Callable

__all__ = ["add_command", "budget_ms", "max_runs", "whole_number"]


def add_command(subparsers: Any, common: argparse.ArgumentParser, name: str, *, handler: Callable[..., int] | None,
                help: str, description: str | None = None) -> argparse.ArgumentParser:
    """The parser of command ``name``: it takes the common flags and runs ``handler``."""
    parser: argparse.ArgumentParser = subparsers.add_parser(name, parents=[common], help=help, description=description)
    parser.set_defaults(handler=handler)
    return parser


def whole_number(text: str, maximum: int | None = None) -> int:
    """``text`` as a whole number above 0 and at most ``maximum``, for argparse's ``type=``."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number above 0, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a whole number above 0, got {value}")
    if maximum is not None and value > maximum:
        raise argparse.ArgumentTypeError(f"expected a number of at most {maximum}, got {value}")
    return value


def budget_ms(text: str) -> int:
    """A wall-time budget in milliseconds, at most ``eutaxy.engine.bounds.BUDGET_MS_MAX``."""
    from eutaxy.engine.bounds import BUDGET_MS_MAX

    return whole_number(text, BUDGET_MS_MAX)


def max_runs(text: str) -> int:
    """A number of runs, at most ``eutaxy.engine.bounds.RUNS_MAX``."""
    from eutaxy.engine.bounds import RUNS_MAX

    return whole_number(text, RUNS_MAX)
