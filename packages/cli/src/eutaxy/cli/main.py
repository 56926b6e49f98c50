"""The ``eutaxy`` command: argument parsing, dispatch and the mapping of failures to exit codes.

Each subcommand lives in its own module and registers its parser here. Platform, engine
and prover packages are imported inside the commands that need them, so ``eutaxy --help``
and ``eutaxy --version`` run with none of them installed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import signal
import sys
import threading
import traceback
from typing import Any, Iterator, NoReturn, Sequence, TextIO

from eutaxy.cli.check_command import add_check_parser
from eutaxy.cli.draft_command import add_draft_parser
from eutaxy.cli.exit_codes import EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK
from eutaxy.cli.mcp_command import add_mcp_parser
from eutaxy.cli.output import Output
from eutaxy.cli.prover_command import add_prover_parser
from eutaxy.cli.report_command import add_report_parser
from eutaxy.cli.toolchain_command import add_toolchain_parser
from eutaxy.core.errors import UserError

__all__ = ["VERSION", "build_parser", "main"]

#: Released in lockstep with every eutaxy-* distribution.
VERSION = "0.1.0"


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where Python was, so every ``finally`` runs as for Ctrl-C.

    A KeyboardInterrupt, so code that lets Ctrl-C through (a handler's ``except
    BaseException`` in the AWS run loop does) lets this through too; the platform's
    ``close`` then stops the host and removes its folders.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _terminate(signum: int, frame: object) -> None:
    # A second signal must not cut the cleanup the first one started.
    for other in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(other, signal.SIG_IGN)
    raise Terminated(signum)


@contextlib.contextmanager
def _signals_raise() -> Iterator[None]:
    """While a command runs, SIGTERM and SIGHUP unwind it like Ctrl-C (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, _terminate) for signum in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


class UsageError(Exception):
    """The command line did not parse; argparse's message, with the parser's usage."""

    def __init__(self, message: str, usage: str) -> None:
        super().__init__(message)
        self.usage = usage


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises on bad usage, so main() decides what is printed.

    It takes no abbreviations: ``--budget 1`` is an unrecognized argument, never ``--budget-ms 1``.
    Subcommand parsers are made with this class too, so the rule holds for every command.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise UsageError(message, self.format_usage())


def build_parser() -> argparse.ArgumentParser:
    # --json is accepted before or after the subcommand; SUPPRESS keeps a subparser's
    # absent flag from overwriting one given earlier.
    common = _Parser(add_help=False)
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="print one canonical JSON object (schemaVersion 1, with a kind)")
    parser = _Parser(
        prog="eutaxy",
        description="Deterministic simulation checking for Cloudflare Workers and AWS Lambda.",
        epilog="Exit codes: 0 BOUNDED or success, 1 VIOLATED (or a refuted spec), "
        "2 UNSUPPORTED or bad input, 3 a bug in Eutaxy.",
    )
    parser.add_argument("--json", action="store_true", help="print one canonical JSON object (schemaVersion 1, with a kind)")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_check_parser(subparsers, common)
    add_draft_parser(subparsers, common)
    add_report_parser(subparsers, common)
    add_toolchain_parser(subparsers, common)
    add_prover_parser(subparsers, common)
    add_mcp_parser(subparsers, common)
    return parser


#: What exit 3 says before the error: a bug in Eutaxy, this version, and how to report it.
_INTERNAL = (f"internal error (a bug in Eutaxy {VERSION}; please report it with the traceback above, "
             "the command and the scenario that gave it)")

#: The exit code of a command whose reader went away (``eutaxy check ... | head -1``): 128 + SIGPIPE, as a shell reports it.
EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE


def main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``) and return the exit code.

    A reader that closed stdout early ends the command quietly with exit 141, as a Unix tool
    killed by SIGPIPE does: no traceback, and not exit 3 (it is no bug in Eutaxy).
    """
    stdout = stdout if stdout is not None else sys.stdout
    try:
        code = _main(argv, stdout=stdout, stderr=stderr)
        stdout.flush()
    except BrokenPipeError:
        _quiet_stdout(stdout)
        return EXIT_BROKEN_PIPE
    return code


def _reader_gone(stdout: TextIO) -> bool:
    """Whether ``stdout`` is a pipe whose reader closed it (the write end polls as an error)."""
    try:
        descriptor = stdout.fileno()
    except (OSError, ValueError, AttributeError):
        return False
    poller = select.poll()
    poller.register(descriptor, select.POLLOUT)
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))


def _quiet_stdout(stdout: TextIO) -> None:
    """Point the closed pipe's descriptor at /dev/null, so Python's flush at exit has nowhere to fail."""
    try:
        descriptor = stdout.fileno()
    except (OSError, ValueError, AttributeError):
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, descriptor)
    finally:
        os.close(null)


def _main(argv: Sequence[str] | None, *, stdout: TextIO, stderr: TextIO | None) -> int:
    stderr = stderr if stderr is not None else sys.stderr
    arguments = list(sys.argv[1:] if argv is None else argv)
    out = Output(stdout, stderr, json="--json" in arguments)
    parser = build_parser()
    try:
        args = parser.parse_args(arguments)
    except UsageError as error:
        if not out.json:
            stderr.write(error.usage)
        out.error(str(error))
        return EXIT_INPUT
    except SystemExit as exit_request:  # --help
        return exit_request.code if isinstance(exit_request.code, int) else EXIT_OK
    out.json = bool(getattr(args, "json", False))
    if args.version:
        out.report({"kind": "version", "version": VERSION}, text=f"eutaxy {VERSION}")
        return EXIT_OK
    handler = getattr(args, "handler", None)
    if handler is None:
        if out.json:
            out.error("a command is needed: check, draft, report or toolchain")
        else:
            parser.print_help(stderr)
        return EXIT_INPUT
    try:
        with _signals_raise():
            return handler(args, out)
    except UserError as error:
        out.error(str(error))
        return EXIT_INPUT
    except Terminated as terminated:
        out.error(f"terminated ({terminated})")
        return 128 + terminated.signum
    except KeyboardInterrupt:
        out.error("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        if _reader_gone(stdout):
            raise  # the reader of stdout went away; main() ends quietly
        stderr.write(traceback.format_exc())  # another pipe (the Node host's, say): a bug in Eutaxy
        out.error(f"{_INTERNAL}: a pipe broke",
                  kind="internal_error")
        return EXIT_INTERNAL
    except Exception as error:  # noqa: BLE001 - anything else is a bug in Eutaxy, never exit 1
        stderr.write(traceback.format_exc())
        out.error(
            f"{_INTERNAL}: "
            f"{type(error).__name__}: {error}",
            kind="internal_error",
        )
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
