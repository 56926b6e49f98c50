"""The bad-input corpus: inputs a new user (or a machine) gets wrong, and what ``eutaxy`` says.

Each case in ``bad_inputs/cases/*.toml`` starts from one good project in
``bad_inputs/base/<base>/`` (a Worker or an AWS handler with its scenario, which checks
BOUNDED), changes one thing, runs the command line in that directory and expects:

- the exit code it names (2 for bad input and UNSUPPORTED; never 3, which is a bug in Eutaxy);
- no traceback, and every word of ``words`` in what was printed (stderr and stdout);
- for an input error, nothing written beside the scenario (no new file, none written over).

A case file holds ``about`` (what the user did), ``base``, ``argv``, ``exit``, ``words``
(and ``absent``, words that must not be printed; ``first``, what the first line printed
starts with, the project's folder read as ``.``), and its changes: ``files`` (a path and
its whole new text; an empty text deletes the file) and ``edits`` (``[path, old, new]``,
each ``old`` found exactly once). ``env`` sets
environment variables; ``node = true`` marks a case that starts the Node host.
"""

from __future__ import annotations

import io
import os
import shutil
import tomllib
from pathlib import Path

import pytest

from eutaxy.cli.main import main

HERE = Path(__file__).parent / "bad_inputs"
CASES = sorted((HERE / "cases").glob("*.toml"))
#: The corpus is at least this big (issue 19); a smaller one lost cases.
MINIMUM_CASES = 40
_FIELDS = {"about", "base", "argv", "exit", "first", "words", "absent", "files", "edits", "env", "node"}


def _load(path: Path) -> dict:
    case = tomllib.loads(path.read_text(encoding="utf-8"))
    unknown = set(case) - _FIELDS
    assert not unknown, f"{path.name}: unknown fields {sorted(unknown)}"
    for field in ("about", "base", "argv", "exit", "words"):
        assert field in case, f"{path.name}: {field} is missing"
    assert case["exit"] != 3, f"{path.name}: exit 3 is a bug in Eutaxy, never an expected answer"
    return case


def _project(case: dict, directory: Path) -> None:
    shutil.copytree(HERE / "base" / case["base"], directory, dirs_exist_ok=True)
    for name, text in (case.get("files") or {}).items():
        target = directory / name
        if text == "":
            target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    for name, old, new in case.get("edits") or []:
        target = directory / name
        text = target.read_text(encoding="utf-8")
        assert text.count(old) == 1, f"edit of {name}: {old!r} is not found exactly once"
        target.write_text(text.replace(old, new), encoding="utf-8")


def _tree(directory: Path) -> list[tuple[str, bytes]]:
    """Every path under ``directory`` with its bytes, so a file written over is seen as well as a new one."""
    return sorted((str(path.relative_to(directory)), path.read_bytes() if path.is_file() else b"")
                  for path in directory.rglob("*"))


def test_the_corpus_is_big_enough():
    """At least forty cases, each file well formed."""
    assert len(CASES) >= MINIMUM_CASES
    for path in CASES:
        _load(path)


@pytest.mark.parametrize("path", CASES, ids=[path.stem for path in CASES])
def test_bad_input(path, tmp_path, monkeypatch, request):
    """The case's command exits as its file says, names what is wrong, and prints no traceback."""
    case = _load(path)
    if case.get("node"):
        request.getfixturevalue("toolchain")
    directory = tmp_path / "project"
    _project(case, directory)
    monkeypatch.chdir(directory)
    for name, value in (case.get("env") or {}).items():
        monkeypatch.setenv(name, value)
    before = _tree(directory)
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(list(case["argv"]), stdout=stdout, stderr=stderr)
    printed = stderr.getvalue() + stdout.getvalue()
    assert "Traceback" not in printed, printed
    assert case["exit"] == code, printed
    if "first" in case:
        # Paths are read relative to the project, wherever the test put it.
        lines = printed.replace(f"{directory}{os.sep}", "").splitlines()
        assert lines and lines[0].startswith(case["first"]), f"{case['about']}: the first line is not {case['first']!r}:\n{printed}"
    missing = [word for word in case["words"] if word not in printed]
    assert not missing, f"{case['about']}: {missing} not in:\n{printed}"
    present = [word for word in case.get("absent") or [] if word in printed]
    assert not present, f"{case['about']}: {present} should not be in:\n{printed}"
    if code == 2 and "UNSUPPORTED" not in stdout.getvalue():
        assert before == _tree(directory), "an input error wrote files"
