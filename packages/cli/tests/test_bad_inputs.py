"""The bad-input corpus: inputs a new user (or a machine) gets wrong, and what ``eutaxy`` says.

Each case in ``bad_inputs/cases/*.toml`` starts from one good project in
``bad_inputs/base/<base>/`` (a Worker or an AWS handler with its scenario, which checks
BOUNDED), changes one thing, runs the command line in that directory and expects:

- the exit code it names (2 for bad input and UNSUPPORTED; never 3, which is a bug in Eutaxy);
- no traceback, and every word of ``words`` in what was printed (stderr and stdout);
- nothing written beside the scenario (no new file, none written over), whatever the answer
  but VIOLATED (which writes its regression test);
- with ``json = true``, stdout is exactly one JSON object, whatever else the case printed.

A case file holds ``about`` (what the user did), ``base``, ``argv``, ``exit``, ``words``
(and ``absent``, words that must not be printed; ``first``, what the first line printed
starts with, the project's folder read as ``.``; ``json``), and its changes: ``files`` (a path and
its whole new text; an empty text deletes the file) and ``edits`` (``[path, old, new]``,
each ``old`` found exactly once). ``env`` sets
environment variables; ``node = true`` marks a case that starts the Node host;
``stdout_closed = true`` runs the command with its stdout's reader gone before anything was
printed (``eutaxy check ... | true``), so only stderr is read.

Each case runs the real command in a process of its own (``python -m eutaxy.cli``, in a
session of its own) under CASE_LIMIT_S of real time: past it the process and everything it
started (workerd, the Node host, an AWS handler's process) is killed and the case fails,
naming the limit. No answer the issue asks for takes that long: the longest waits end within
two minutes (a handler blocked on a socket, a Worker's CPU loop under the largest budget).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "bad_inputs"
CASES = sorted((HERE / "cases").glob("*.toml"))
#: The corpus is at least this big (issue 19); a smaller one lost cases.
MINIMUM_CASES = 40
#: The real time one case may take before its process is killed and the case fails.
CASE_LIMIT_S = 180
_FIELDS = {"about", "base", "argv", "exit", "first", "words", "absent", "files", "edits", "env", "node", "json", "stdout_closed"}


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
def test_bad_input(path, tmp_path, request):
    """The case's command exits as its file says, names what is wrong, and prints no traceback."""
    case = _load(path)
    if case.get("node"):
        request.getfixturevalue("toolchain")
    directory = tmp_path / "project"
    _project(case, directory)
    env = {**os.environ, **(case.get("env") or {}), "PYTHONPATH": os.pathsep.join(path for path in sys.path if path)}
    before = _tree(directory)
    code, stdout, stderr = _command(list(case["argv"]), directory, env, path.stem, stdout_closed=bool(case.get("stdout_closed")))
    printed = stderr + stdout
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
    if case.get("json"):
        answer = json.loads(stdout)
        assert isinstance(answer, dict), stdout
    if code != 1:
        assert before == _tree(directory), "a case that found no violation wrote files"


def _command(argv: list[str], directory: Path, env: dict[str, str], name: str, *, stdout_closed: bool = False) -> tuple[int, str, str]:
    """Run ``eutaxy <argv>`` in ``directory``; its exit code, stdout and stderr. Past CASE_LIMIT_S
    the process's whole session is killed and the case fails. With ``stdout_closed`` the reader
    of its stdout closes the pipe before the command prints (stdout is then empty)."""
    reader, writer = os.pipe() if stdout_closed else (None, None)
    process = subprocess.Popen(
        [sys.executable, "-m", "eutaxy.cli", *argv],
        cwd=directory,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE if writer is None else writer,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    if writer is not None and reader is not None:
        os.close(writer)
        os.close(reader)  # the reader goes away: the command's first write to stdout meets a broken pipe
    try:
        stdout, stderr = process.communicate(timeout=CASE_LIMIT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        pytest.fail(
            f"{name}: still running after {CASE_LIMIT_S} s (the corpus's limit per case), so it was killed:\n"
            + (stderr + stdout).decode("utf-8", "replace")
        )
    finally:
        # What the case started and left behind (workerd, a handler's process) ends with it.
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return process.returncode, (stdout or b"").decode("utf-8", "replace"), stderr.decode("utf-8", "replace")
