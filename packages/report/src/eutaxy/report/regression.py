"""The regression-test emitter: a violated verdict becomes a pytest file beside its scenario.

The test replays the verdict's shrunk schedule on the events the shrinker kept, with the
verdict's seed, through the platform's ``expect_holds``, which expects every invariant to
hold: so it fails while the bug exists and passes once it is fixed, and it joins the
project's own test suite.

The emitter knows no platform. The caller names the platform (``scenario["platform"]``)
and, if it is not the usual ``eutaxy.<platform>``, the module to import ``expect_holds``
from; everything else comes from the verdict.
"""

from __future__ import annotations

import ast
import os
import pprint
import re
import tempfile
from pathlib import Path
from typing import Any, Mapping

from eutaxy.core.verdict_data import VerdictDataError, as_verdict
from eutaxy.core.verdicts import SimulationVerdict, Violated
from eutaxy.core.violations import Violation

from eutaxy.core.scenario_stem import scenario_stem

__all__ = ["regression_test_path", "regression_test_source", "write_regression_test"]

_PLATFORM_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_MODULE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def regression_test_path(scenario_path: str | os.PathLike) -> Path:
    """Where the test goes: beside the scenario, named so pytest collects it.

    ``queue-duplicate-write.sim.py`` gives ``queue_duplicate_write_regression_test.py``:
    pytest collects ``*_test.py``, and a module name must not hold ``-`` or ``.``.
    """
    return Path(scenario_path).with_name(_identifier(scenario_stem(scenario_path)) + "_regression_test.py")


def regression_test_source(
    verdict: SimulationVerdict | Mapping[str, Any],
    *,
    scenario_path: str | os.PathLike,
    platform: str,
    module: str | None = None,
    test_path: str | os.PathLike | None = None,
    arguments: Mapping[str, Any] | None = None,
) -> str:
    """The Python source of the regression test for a violated verdict.

    Args:
        verdict: a ``violated`` verdict, typed or as plain data (schedule, keptEvents and
            provenance.seed are read).
        scenario_path: the scenario file the verdict is about.
        platform: the scenario's platform name (``cloudflare``, ``aws``).
        module: where ``expect_holds`` is imported from; ``eutaxy.<platform>`` by default.
        test_path: where the test will be written; ``regression_test_path`` by default.
            The scenario is named relative to it, so the pair can move together.
        arguments: further keyword arguments of the platform's ``expect_holds`` that the
            check ran with (plain data, such as ``{"env": "staging"}`` for a Cloudflare
            check run with ``--env``), so the test replays what the check explored.

    Raises:
        ValueError: the verdict is not a violation, or lacks what a replay needs.
    """
    kind = verdict.kind if isinstance(verdict, SimulationVerdict) else verdict.get("kind")
    if kind != "violated":
        raise ValueError(f"a regression test is written for a violated verdict, not {kind!r}")
    try:
        verdict = as_verdict(verdict)
    except VerdictDataError as error:
        raise ValueError(f"the verdict cannot be replayed: {error}") from None
    assert isinstance(verdict, Violated)
    module = module or _platform_module(platform)
    if not _MODULE_NAME.match(module):
        raise ValueError(f"platform module {module!r} is not an importable module name")
    schedule = verdict.schedule.to_data()
    seed = verdict.provenance.seed
    events = list(verdict.kept_events)
    scenario_path = Path(scenario_path)
    test_path = Path(test_path) if test_path is not None else regression_test_path(scenario_path)
    relative = Path(os.path.relpath(scenario_path.absolute(), test_path.absolute().parent)).as_posix()
    stem = scenario_stem(scenario_path)
    violation = verdict.violation
    extra = "".join(f", {name}={_literal(value)}" for name, value in sorted((arguments or {}).items()))
    assert all(name.isidentifier() for name in (arguments or {})), arguments

    lines = [
        f'"""Regression test for the scenario {_safe(stem)!s}, written by `eutaxy check`.',
        "",
        "It replays the shrunk schedule on the events the shrinker kept and expects every",
        "invariant to hold, so it fails while the bug exists and passes once it is fixed.",
        '"""',
        "",
    ]
    lines += _comment_block(violation)
    lines += [
        "from pathlib import Path",
        "",
        f"from {module} import expect_holds",
        "",
        f"SCENARIO = Path(__file__).parent / {_literal(relative)}",
        "",
        f"SCHEDULE = {_literal(schedule)}",
        "",
        f"EVENTS = {_literal(events)}",
        "",
        f"SEED = {_literal(seed)}",
        "",
        "",
        f"def test_{_identifier(stem)}_regression():",
        f"    expect_holds(str(SCENARIO), schedule=SCHEDULE, events=EVENTS, seed=SEED{extra})",
        "",
    ]
    source = "\n".join(lines)
    compile(source, str(test_path), "exec")  # the emitter must never write a broken file
    return source


def write_regression_test(
    verdict: SimulationVerdict | Mapping[str, Any],
    scenario_path: str | os.PathLike,
    platform: str,
    *,
    module: str | None = None,
    arguments: Mapping[str, Any] | None = None,
) -> Path:
    """Write the regression test beside the scenario, atomically, and return its path.

    The file is written to a temporary name in the same directory and renamed over the
    target, so a reader (or an interrupted run) never sees half a test; its mode is what the
    process's umask gives a new file.
    """
    test_path = regression_test_path(scenario_path)
    source = regression_test_source(
        verdict, scenario_path=scenario_path, platform=platform, module=module, test_path=test_path, arguments=arguments
    )
    handle, temporary = tempfile.mkstemp(prefix="." + test_path.name + ".", suffix=".tmp", dir=test_path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(source)
            stream.flush()
            os.fsync(stream.fileno())
        # mkstemp makes the file 0600; the test is the user's file like any other they write.
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, test_path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    return test_path


def _platform_module(platform: str) -> str:
    if not isinstance(platform, str) or not _PLATFORM_NAME.match(platform):
        raise ValueError(f"platform {platform!r} is not a platform name such as 'cloudflare' or 'aws'")
    return f"eutaxy.{platform}"


def _identifier(text: str) -> str:
    identifier = re.sub(r"[^0-9A-Za-z_]", "_", text)
    return identifier or "scenario"


def _literal(value: Any) -> str:
    """Python source for plain data, checked to read back as the same value."""
    text = pprint.pformat(value, width=88, sort_dicts=True)
    assert ast.literal_eval(text) == value, text
    return text


def _safe(text: str) -> str:
    """Text fit for a docstring: printable, no quote or backslash that could end it."""
    return "".join(char if char.isprintable() and char not in "\"\\" else "?" for char in str(text))


def _printable(text: str) -> str:
    """Text fit for a comment: one line, printable characters only."""
    return "".join(char if char.isprintable() else "?" for char in str(text))


def _comment_block(violation: Violation) -> list[str]:
    if not violation.invariant and not violation.message:
        return []
    lines = [f"# Invariant broken: {_printable(violation.invariant or '(unnamed)')}"]
    if violation.invariant_kind:
        lines[0] += f" ({_printable(violation.invariant_kind)})"
    for line in violation.message.splitlines():
        lines.append("#   " + _printable(line))
    return lines + [""]


def _umask() -> int:
    """The process's umask (reading it means setting it; it is put back at once)."""
    current = os.umask(0o022)
    os.umask(current)
    return current
