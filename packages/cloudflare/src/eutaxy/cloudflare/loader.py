"""Loading a ``*.sim.py`` scenario file by path.

The file is imported as a fresh module each time (never cached in
``sys.modules``), with its own directory first on ``sys.path`` while it runs so
it can import helpers beside it. Whatever goes wrong while it runs is the
user's to fix, so it becomes a :class:`~eutaxy.core.errors.UserError` that
names the scenario file's line (and the innermost line, when that is elsewhere).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import traceback
from pathlib import Path
from typing import Any

from eutaxy.core.errors import UserError

__all__ = ["load_scenario"]


def load_scenario(path: str | Path) -> dict[str, Any]:
    """Import the scenario file at ``path`` and return its module-level ``scenario``.

    Raises:
        UserError: the file is missing, does not run, or binds no scenario dict.
    """
    # Absolute but symlinks kept, so Bazel runfiles stay the scenario's directory.
    scenario_path = Path(os.path.normpath(os.path.abspath(path)))
    if not scenario_path.is_file():
        raise UserError(f"{path}: no such scenario file")
    digest = hashlib.sha256(str(scenario_path).encode("utf-8")).hexdigest()[:16]
    module_name = f"_eutaxy_scenario_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, scenario_path)
    if spec is None or spec.loader is None:
        raise UserError(f"{scenario_path}: cannot be imported as Python (name it <name>.sim.py)")
    module = importlib.util.module_from_spec(spec)
    directory = str(scenario_path.parent)
    sys.modules[module_name] = module
    sys.path.insert(0, directory)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as error:
        location = f"{error.filename or scenario_path}:{error.lineno or 0}"
        raise UserError(f"{location}: the scenario does not parse: {error.msg}") from None
    except BaseException as error:  # noqa: BLE001 - a scenario may raise anything, even SystemExit
        if isinstance(error, KeyboardInterrupt):
            raise
        raise UserError(_describe_failure(scenario_path, error)) from None
    finally:
        sys.modules.pop(module_name, None)
        try:
            sys.path.remove(directory)
        except ValueError:
            pass
    scenario = getattr(module, "scenario", None)
    if scenario is None:
        raise UserError(
            f"{scenario_path}: defines no module-level `scenario`; bind it: scenario = define_scenario(...)"
        )
    if not isinstance(scenario, dict) or not isinstance(scenario.get("platform"), str):
        raise UserError(
            f"{scenario_path}: `scenario` must be the dict define_scenario(...) returns, got {type(scenario).__name__}"
        )
    return scenario


def _describe_failure(scenario_path: Path, error: BaseException) -> str:
    """``file:line: Type: message``, at the scenario's own line that led to the error."""
    frames = traceback.extract_tb(error.__traceback__)
    in_scenario = [frame for frame in frames if os.path.normpath(os.path.abspath(frame.filename)) == str(scenario_path)]
    where = in_scenario[-1] if in_scenario else (frames[-1] if frames else None)
    location = f"{where.filename}:{where.lineno}" if where is not None else str(scenario_path)
    problem = str(error) if isinstance(error, UserError) else f"{type(error).__name__}: {error}"
    message = f"{location}: the scenario failed to load: {problem}"
    innermost = frames[-1] if frames else None
    if innermost is not None and where is not None and innermost is not where and not isinstance(error, UserError):
        message += f" (raised at {innermost.filename}:{innermost.lineno})"
    return message
