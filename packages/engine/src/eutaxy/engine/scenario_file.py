"""Importing a ``*.sim.py`` file by path to read its ``scenario`` dict: the one loader.

The CLI must learn a scenario's platform before it can import the platform package, and
each platform's ``load_scenario`` and regression tests load the same files, so this
loader knows no platform unless asked: it runs the file as a fresh module (its directory
first on ``sys.path`` while it runs, so helpers beside it import; never cached in
``sys.modules``; no bytecode written beside it; what it prints goes to the caller's capture
(the CLI puts it in the report) or stderr, never to stdout, which carries the report) and reads the module-level ``scenario``.
Whatever goes wrong is the user's to fix, so it becomes a ``UserError`` naming the file
and line, which the CLI prints before exiting 2.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import re
import sys
import threading
import traceback
from pathlib import Path
from typing import Any, Iterable, Iterator, TextIO

from eutaxy.core.errors import SettingError, UserError, error_text
from eutaxy.core.plain_data import json_problem
from eutaxy.engine.runloop import _raise_in_thread

__all__ = ["IMPORT_DEADLINE_S", "display_path", "failure_text", "import_scenario", "locate", "no_bytecode", "scenario_root"]

#: Real time a scenario file's top level may take to run (it only builds a dict); past it the
#: import is stopped and the file named (exit 2). ``EUTAXY_IMPORT_DEADLINE_S`` sets another.
IMPORT_DEADLINE_S = 30.0
#: How often a stopped import that caught the stop is stopped again, and how many times.
_RESTOP_S, _RESTOPS_MAX = 1.0, 5


class ScenarioImportTimeout(BaseException):
    """Raised into a scenario file's top level that ran past its deadline."""


def import_deadline_s() -> float:
    """The scenario import deadline: ``EUTAXY_IMPORT_DEADLINE_S`` when it is a positive number, else IMPORT_DEADLINE_S."""
    given = os.environ.get("EUTAXY_IMPORT_DEADLINE_S")
    if not given:
        return IMPORT_DEADLINE_S
    try:
        value = float(given)
    except ValueError:
        raise SettingError(f"EUTAXY_IMPORT_DEADLINE_S is {given!r}; expected a number of seconds such as 30") from None
    if not value > 0 or value != value or value == float("inf"):
        raise SettingError(f"EUTAXY_IMPORT_DEADLINE_S is {given!r}; expected a positive, finite number of seconds")
    return value


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Raise ScenarioImportTimeout into this thread once ``seconds`` pass (again each second, a few times)."""
    thread_id = threading.get_ident()
    done = threading.Event()

    def watch() -> None:
        if done.wait(seconds):
            return
        for _ in range(_RESTOPS_MAX):
            _raise_in_thread(thread_id, ScenarioImportTimeout)
            if done.wait(_RESTOP_S):
                return

    watcher = threading.Thread(target=watch, name="eutaxy-import-deadline", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()


@contextlib.contextmanager
def no_bytecode() -> Iterator[None]:
    """Import without writing ``__pycache__`` beside the user's files.

    Reading a scenario must not change the user's tree: a check that fails on bad input
    writes nothing, and even a good one writes only the regression test.
    """
    previous = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        yield
    finally:
        sys.dont_write_bytecode = previous


def import_scenario(path: str | Path, *, platform: str | None = None, output: TextIO | None = None) -> dict[str, Any]:
    """Run the scenario file at ``path`` and return its ``scenario`` dict.

    ``platform``, when given, is the platform the caller checks (``"cloudflare"``,
    ``"aws"``): a scenario built for another one is refused, naming the right package.
    What the file prints to stdout as it runs goes to ``output`` (the CLI's capture, which
    the report holds), else to stderr: never to stdout, which is the report's.

    Raises:
        UserError: the file is missing, does not parse or run (the message starts with
            ``file:line``), binds no ``scenario`` dict with a ``platform``, or is for
            another platform than ``platform``.
    """
    scenario_path = Path(path).absolute()
    if scenario_path.is_dir():
        raise UserError(f"{path}: is a directory; name the scenario file in it (<name>.sim.py)")
    if not scenario_path.is_file():
        raise UserError(f"{path}: no such scenario file")
    module_name = "_eutaxy_cli_scenario_" + hashlib.sha256(str(scenario_path).encode()).hexdigest()[:16]
    spec = importlib.util.spec_from_file_location(module_name, scenario_path)
    if spec is None or spec.loader is None:
        raise UserError(f"{path}: cannot be imported as Python; name the file <name>.sim.py")
    module = importlib.util.module_from_spec(spec)
    # Helpers beside the file import as its relative paths resolve (scenario_root): from the
    # link's folder first, then from the folder of the file it links to.
    directories = [str(scenario_path.parent)]
    if scenario_path.is_symlink():
        directories.append(os.path.dirname(os.path.realpath(scenario_path)))
    deadline_s = import_deadline_s()
    sys.modules[module_name] = module
    sys.path[:0] = directories
    try:
        # What the file prints while it runs is not the report: it goes to ``output`` (else
        # stderr), so stdout stays the report alone (one JSON object under --json).
        try:
            with no_bytecode(), contextlib.redirect_stdout(output or sys.stderr), _deadline(deadline_s):
                spec.loader.exec_module(module)
        except ScenarioImportTimeout:
            raise
        except BaseException as error:
            # The stop may land after the file raised, in the handling of its own error.
            if isinstance(error.__context__, ScenarioImportTimeout):
                raise error.__context__ from None
            raise
    except ScenarioImportTimeout as stopped:
        raise UserError(
            f"{failure_text(scenario_path, stopped).split(': the scenario failed to load:')[0]}: the scenario did not finish "
            f"loading within {deadline_s:g} s (its top level only builds `scenario`; a loop at import?); "
            "EUTAXY_IMPORT_DEADLINE_S sets another deadline"
        ) from None
    except SyntaxError as error:
        where = f"{error.filename or path}:{error.lineno or 0}"
        raise UserError(f"{where}: the scenario does not parse: {error.msg}") from None
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # noqa: BLE001 - a scenario may raise anything, SystemExit too
        raise UserError(failure_text(scenario_path, error)) from None
    finally:
        sys.modules.pop(module_name, None)
        for directory in directories:
            if directory in sys.path:
                sys.path.remove(directory)
    scenario = getattr(module, "scenario", None)
    if scenario is None:
        raise UserError(f"{path}: defines no module-level `scenario`; bind one: scenario = define_scenario(...)")
    if not isinstance(scenario, dict):
        raise UserError(f"{path}: `scenario` must be the dict define_scenario(...) returns, got {type(scenario).__name__}")
    if not isinstance(scenario.get("platform"), str):
        raise UserError(
            f"{path}: `scenario` has no platform; build it with a platform's define_scenario "
            "(eutaxy.cloudflare or eutaxy.aws)"
        )
    _check_plain_data(path, scenario)
    _check_event_ids(path, scenario)
    if platform is not None and scenario["platform"] != platform:
        raise UserError(
            f"{path}: this scenario is for the {scenario['platform']} platform, not {platform}: "
            f"load it with eutaxy.{scenario['platform']} (or run `eutaxy check {path}`)"
        )
    return scenario


def _check_plain_data(path: str | Path, scenario: dict[str, Any]) -> None:
    """Refuse a scenario that is not JSON data before any platform starts.

    Every run plan carries the scenario to the runtime as JSON, so a message body that is a
    set, NaN or an object would otherwise fail inside the host client, mid-check.
    """
    problem = json_problem(scenario, "scenario")
    if problem is None:
        return
    drive = scenario.get("drive")
    events = drive.get("events") if isinstance(drive, dict) else None
    match = _EVENT_PATH.match(problem)
    if match is not None and isinstance(events, list) and int(match.group(2)) < len(events):
        event = events[int(match.group(2))]
        event_id = event.get("id") if isinstance(event, dict) else None
        if isinstance(event_id, str):
            problem = f"{match.group(1)} (event {event_id}){problem[match.end():]}"
    raise UserError(f"{path}: {problem}")


def _check_event_ids(path: str | Path, scenario: dict[str, Any]) -> None:
    """Refuse drive events whose ids are missing or repeat, as the file left them.

    ``define_scenario`` gives each event its id and refuses repeats, but the file may change
    the dict it returned afterwards; every run, trace and schedule names events by id, so
    two events with one id are the user's input to fix, found here before any platform starts.
    """
    drive = scenario.get("drive")
    events = drive.get("events") if isinstance(drive, dict) else None
    if not isinstance(events, list):
        return
    seen: dict[str, int] = {}
    for position, event in enumerate(events):
        event_id = event.get("id") if isinstance(event, dict) else None
        if not isinstance(event_id, str) or not event_id:
            raise UserError(
                f"{path}: scenario.drive.events[{position}] has no id (got {event_id!r}); the scenario was changed "
                "after define_scenario: give the event to define_scenario's drive instead"
            )
        if event_id in seen:
            raise UserError(
                f"{path}: the drive's event ids repeat: {event_id!r} is events {seen[event_id]} and {position}; "
                "the scenario was changed after define_scenario, which gives each event its own id"
            )
        seen[event_id] = position


_EVENT_PATH = re.compile(r"^(scenario\.drive\.events\[(\d+)\][^:]*)")


def scenario_root(source: str | Path, names: Iterable[str]) -> Path:
    """The folder the relative paths of the scenario defined in ``source`` are read from.

    A scenario file that is a symlink reads its files as the file it links to does: from
    that file's folder. The link's folder is kept when every relative path the scenario
    names (``names``; absolute ones are skipped) is there, as in Bazel's runfiles, where
    each declared file is a symlink beside the others and the real folder may be outside
    what a sandboxed test may read. A file reached through a linked folder is no link: its
    folder, as spelled, is the root.
    """
    link = Path(os.path.normpath(os.path.abspath(source)))
    if not link.is_symlink():
        return link.parent
    relative = [name for name in names if not os.path.isabs(name)]
    if relative and all((link.parent / name).exists() for name in relative):
        return link.parent
    return Path(os.path.realpath(link)).parent


def display_path(path: str | Path) -> str:
    """A path as a message shows it: relative to the working directory when it is inside it."""
    absolute = Path(os.path.abspath(path))
    try:
        return str(absolute.relative_to(Path.cwd()))
    except ValueError:
        return str(absolute)


def locate(scenario: Any, error: UserError) -> UserError:
    """``error`` with the scenario file (and the line its ``near`` word is on) in front.

    Errors found after the file ran (the Worker's config does not have a binding the
    scenario names, a table only the first run shows) cannot carry a traceback line, so
    the line is the first one of the file that writes the word quoted; a message that
    already starts with a location, or a ``SettingError`` (an environment variable, no part
    of the file), is left as it is.
    """
    source = scenario.get("source") if isinstance(scenario, dict) else None
    message = str(error)
    if not isinstance(source, str) or not source or _LOCATED.match(message) or isinstance(error, SettingError):
        return error
    where = display_path(source)
    line = _line_of(Path(source), error.near) if error.near else None
    located = UserError(f"{where}:{line}: {message}" if line else f"{where}: {message}", near=error.near)
    return located


def _line_of(path: Path, word: str) -> int | None:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    quoted = (f'"{word}"', f"'{word}'")
    for number, text in enumerate(lines, start=1):
        if any(item in text for item in quoted):
            return number
    return None


#: A message that starts with ``path:line:column:``, ``path:line:`` or ``path:`` already says where.
_LOCATED = re.compile(r"^[^\s:]+\.[A-Za-z0-9]+:(\d+:){0,2}\s")


def failure_text(scenario_path: Path, error: BaseException) -> str:
    """``file:line: Type: message`` at the scenario's own line, plus where it was raised."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if not frame.filename.startswith("<")]
    own = [frame for frame in frames if Path(frame.filename).absolute() == scenario_path]
    where = own[-1] if own else (frames[-1] if frames else None)
    location = f"{where.filename}:{where.lineno}" if where is not None else str(scenario_path)
    problem = str(error) if isinstance(error, UserError) else error_text(error)
    text = f"{location}: the scenario failed to load: {problem}"
    innermost = frames[-1] if frames else None
    if innermost is not None and where is not None and innermost is not where and not isinstance(error, UserError):
        text += f" (raised at {innermost.filename}:{innermost.lineno})"
    return text
