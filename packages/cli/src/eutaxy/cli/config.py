"""The project config: defaults for ``eutaxy check`` (and the engines for ``eutaxy report``).

A project writes them once, in ``[tool.eutaxy]`` of its ``pyproject.toml`` or at the
top level of an ``eutaxy.toml`` beside its scenarios::

    [tool.eutaxy]
    prover = ["smt"]     # the engines --prover runs when the command line names none
    prover-steps = 16000000  # the smt engine's step limit per property (--prover-steps)
    seed = "nightly-1"   # the exploration seed (default: the scenario file's name)
    budget-ms = 5000     # the wall-time budget (default: the scenario's bounds.budgetMs)
    max-runs = 400       # the run cap (default: bounds.maxRuns, else none)

The nearest config above the scenario wins: from the scenario's folder upward, the
first folder with an ``eutaxy.toml``, or a ``pyproject.toml`` that has a
``[tool.eutaxy]`` table, holds it (a ``pyproject.toml`` without one is passed by);
a folder with both is bad input. Configs are not merged. A flag on the command line
wins over the config. Anything the config says that Eutaxy does not know (an
unknown key, a value of the wrong kind, TOML that does not parse) is a
``UserError``, exit 2, naming the file, the line and the nearest valid key.
"""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path
from typing import Any

import attrs

from eutaxy.cli.provers import CHOICES, PROVER_STEPS_MAX
from eutaxy.core.errors import UserError, nearest_names

__all__ = ["CONFIG_FILE", "KEYS", "ProjectConfig", "config_for", "find_config", "load_config", "with_configured_provers"]

CONFIG_FILE = "eutaxy.toml"
PYPROJECT = "pyproject.toml"
#: Every key the config takes, and what its value must be (said in messages).
KEYS = {
    "prover": f"a list of engines from {', '.join(CHOICES)}, such as [\"smt\"]",
    "seed": "a non-empty string, such as \"s1\"",
    "budget-ms": "a whole number of milliseconds above 0, such as 5000",
    "max-runs": "a whole number of runs above 0, such as 400",
    "prover-steps": f"a whole number of solver steps above 0 and at most {PROVER_STEPS_MAX}, such as 40000000",
}
#: How many folders upward the search looks; deeper than any real path, a bound on the walk.
SEARCH_DEPTH_MAX = 256


@attrs.frozen(kw_only=True)
class ProjectConfig:
    """What a config file says; every field None (or empty) when it says nothing, or there is none."""

    #: The file it came from, or None when no config was found.
    path: Path | None = None
    prover: tuple[str, ...] = ()
    seed: str | None = None
    budget_ms: int | None = None
    max_runs: int | None = None
    prover_steps: int | None = None


def find_config(start: Path) -> Path | None:
    """The nearest eutaxy.toml, or pyproject.toml with [tool.eutaxy], in start or a folder above it."""
    folder = start.absolute()
    for _ in range(SEARCH_DEPTH_MAX):
        own = folder / CONFIG_FILE
        pyproject = folder / PYPROJECT
        has_table = pyproject.is_file() and _has_eutaxy_table(pyproject)
        if own.is_file() and has_table:
            raise UserError(f"{folder}: both {CONFIG_FILE} and {PYPROJECT} [tool.eutaxy] configure Eutaxy here; "
                            f"expected one of them (remove the other)")
        if own.is_file():
            return own
        if has_table:
            return pyproject
        if folder.parent == folder:
            return None
        folder = folder.parent
    return None


def config_for(path: Path) -> ProjectConfig:
    """The config that applies to a scenario file (or to a folder), or an empty one."""
    start = path if path.is_dir() else path.parent
    found = find_config(start)
    return load_config(found) if found is not None else ProjectConfig()


def with_configured_provers(args: argparse.Namespace, config: ProjectConfig) -> argparse.Namespace:
    """args with the config's engines as ``--prover`` and its ``prover-steps`` as ``--prover-steps``,
    each where the command line names none."""
    given = dict(vars(args))
    if not given.get("prover") and config.prover:
        given["prover"] = list(config.prover)
    if not given.get("prover_steps") and config.prover_steps:
        given["prover_steps"] = config.prover_steps
    return argparse.Namespace(**given)


def load_config(path: Path) -> ProjectConfig:
    """Reads and checks one config file; a UserError names what is wrong, where."""
    text = _read(path)
    data = _parse(path, text)
    if path.name == PYPROJECT:
        table = data.get("tool", {}).get("eutaxy")
        header = "[tool.eutaxy]"
        if not isinstance(table, dict):
            raise UserError(f"{path}:{_header_line(text, header)}: expected {header} to be a table, got {table!r}")
    else:
        table, header = data, None
    values: dict[str, Any] = {}
    for key, value in table.items():
        line = _key_line(text, header, key)
        where = f"{path}:{line}" if line else str(path)
        if key not in KEYS:
            raise UserError(f"{where}: unknown key {key!r} in {header or CONFIG_FILE}; "
                            + nearest_names(key, KEYS, what="the keys"), near=key)
        values[key.replace("-", "_")] = _checked(where, key, value)
    return ProjectConfig(path=path, **values)


def _checked(where: str, key: str, value: Any) -> Any:
    def bad() -> UserError:
        return UserError(f"{where}: {key} must be {KEYS[key]}, got {value!r}", near=key)

    if key == "prover":
        if not isinstance(value, list) or not value or not all(isinstance(item, str) for item in value):
            raise bad()
        for item in value:
            if item not in CHOICES:
                raise UserError(f"{where}: prover lists {item!r}, an unknown engine; "
                                + nearest_names(item, CHOICES, what="the engines"), near=key)
        return tuple(value)
    if key == "seed":
        if not isinstance(value, str) or not value.strip():
            raise bad()
        return value
    from eutaxy.engine.bounds import BUDGET_MS_MAX, RUNS_MAX

    maximum = {"budget-ms": BUDGET_MS_MAX, "prover-steps": PROVER_STEPS_MAX}.get(key, RUNS_MAX)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= maximum:
        raise bad()
    return value


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"{path}: cannot read the Eutaxy config: {error}") from None


def _parse(path: Path, text: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        # tomllib's message ends "(at line N, column M)".
        raise UserError(f"{path}: expected TOML: {error}") from None


def _has_eutaxy_table(pyproject: Path) -> bool:
    text = _read(pyproject)
    return "eutaxy" in _parse(pyproject, text).get("tool", {})


def _header_line(text: str, header: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip().replace(" ", "") == header:
            return number
    return 0


def _key_line(text: str, header: str | None, key: str) -> int:
    """The line that writes key in the table (header None: the top level), or 0 when it is not found by eye."""
    inside = header is None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("["):
            name = stripped.strip("[]").replace(" ", "")
            if header is not None and name.startswith("tool.eutaxy.") and name.split(".")[2].strip('"') == key:
                return number
            inside = stripped.replace(" ", "") == header
            continue
        if inside and stripped.split("=", 1)[0].strip().strip('"\'') == key and "=" in stripped:
            return number
    return 0
