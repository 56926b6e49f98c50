"""Importing a ``*.sim.py`` file by path to read its ``scenario`` dict: the one loader.

The CLI must learn a scenario's platform before it can import the platform package, and
each platform's ``load_scenario`` and regression tests load the same files, so this
loader knows no platform unless asked: it runs the file as a fresh module (its directory
first on ``sys.path`` while it runs, so helpers beside it import; never cached in
``sys.modules``; no bytecode written beside it) and reads the module-level ``scenario``.
Whatever goes wrong is the user's to fix, so it becomes a ``UserError`` naming the file
and line, which the CLI prints before exiting 2.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import sys
import traceback
from pathlib import Path
from typing import Any, Iterator

from eutaxy.core.errors import UserError

__all__ = ["failure_text", "import_scenario", "no_bytecode"]


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


def import_scenario(path: str | Path, *, platform: str | None = None) -> dict[str, Any]:
    """Run the scenario file at ``path`` and return its ``scenario`` dict.

    ``platform``, when given, is the platform the caller checks (``"cloudflare"``,
    ``"aws"``): a scenario built for another one is refused, naming the right package.

    Raises:
        UserError: the file is missing, does not parse or run (the message starts with
            ``file:line``), binds no ``scenario`` dict with a ``platform``, or is for
            another platform than ``platform``.
    """
    scenario_path = Path(path).absolute()
    if not scenario_path.is_file():
        raise UserError(f"{path}: no such scenario file")
    module_name = "_eutaxy_cli_scenario_" + hashlib.sha256(str(scenario_path).encode()).hexdigest()[:16]
    spec = importlib.util.spec_from_file_location(module_name, scenario_path)
    if spec is None or spec.loader is None:
        raise UserError(f"{path}: cannot be imported as Python; name the file <name>.sim.py")
    module = importlib.util.module_from_spec(spec)
    directory = str(scenario_path.parent)
    sys.modules[module_name] = module
    sys.path.insert(0, directory)
    try:
        with no_bytecode():
            spec.loader.exec_module(module)
    except SyntaxError as error:
        where = f"{error.filename or path}:{error.lineno or 0}"
        raise UserError(f"{where}: the scenario does not parse: {error.msg}") from None
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # noqa: BLE001 - a scenario may raise anything, SystemExit too
        raise UserError(failure_text(scenario_path, error)) from None
    finally:
        sys.modules.pop(module_name, None)
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
    if platform is not None and scenario["platform"] != platform:
        raise UserError(
            f"{path}: this scenario is for the {scenario['platform']} platform, not {platform}: "
            f"load it with eutaxy.{scenario['platform']} (or run `eutaxy check {path}`)"
        )
    return scenario


def failure_text(scenario_path: Path, error: BaseException) -> str:
    """``file:line: Type: message`` at the scenario's own line, plus where it was raised."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if not frame.filename.startswith("<")]
    own = [frame for frame in frames if Path(frame.filename).absolute() == scenario_path]
    where = own[-1] if own else (frames[-1] if frames else None)
    location = f"{where.filename}:{where.lineno}" if where is not None else str(scenario_path)
    problem = str(error) if isinstance(error, UserError) else f"{type(error).__name__}: {error}"
    text = f"{location}: the scenario failed to load: {problem}"
    innermost = frames[-1] if frames else None
    if innermost is not None and where is not None and innermost is not where and not isinstance(error, UserError):
        text += f" (raised at {innermost.filename}:{innermost.lineno})"
    return text
