"""The lint checks can fail: a finding planted in a scratch tree fails each checker.

Each test builds a small repository in a temporary folder with the real
configuration (ruff.toml, mypy.ini, tools/lint/tsconfig.json and node.d.ts), plants
a finding, and runs lint.py over it as the Bazel targets do: the new finding
fails the check and is named by file:line, code and message; a refreshed baseline
passes; the finding fixed fails again (the baseline must shrink) until refreshed.
"""

from __future__ import annotations

import collections
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).absolute().parent))

import lint  # lint.py sits beside this file, not on the path

# Not resolved: under Bazel this is the runfiles tree, where the configuration is data.
ROOT = Path(__file__).absolute().parents[2]
MODULE = "packages/demo/src/eutaxy/demo/mod.py"


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name in ("ruff.toml", "mypy.ini", "tools/lint/tsconfig.json", "tools/lint/node.d.ts"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, tmp_path / name)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def _check(root: Path, checker: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = lint.main(["--root", str(root), checker])
    return status, capsys.readouterr().out


def _refresh(root: Path, checker: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert 0 == lint.main(["--root", str(root), "--update-baselines", checker])
    return capsys.readouterr().out


def _round_trip(root: Path, checker: str, planted: str, fixed: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    """Planted finding fails; refreshed baseline passes; fixed code fails until refreshed."""
    status, out = _check(root, checker, capsys)
    assert 1 == status, out
    assert planted in out
    assert lint.REFRESH in out

    assert " 0 added" not in _refresh(root, checker, capsys)
    status, out = _check(root, checker, capsys)
    assert 0 == status, out

    for name, text in fixed.items():
        (root / name).write_text(text)
    status, out = _check(root, checker, capsys)
    assert 1 == status, out
    assert "gone" in out

    _refresh(root, checker, capsys)
    assert 0 == _check(root, checker, capsys)[0]


def test_ruff_fails_on_a_planted_finding(tmp_path, capsys):
    """An unused import in a package is F401 at its line; fixed, the baseline entry is gone."""
    root = _tree(tmp_path, {MODULE: "import os\n"})
    _round_trip(root, "ruff", f"{MODULE}:1: F401 `os` imported but unused", {MODULE: "X = 1\n"}, capsys)


def test_ruff_wants_a_reason_on_every_noqa(tmp_path, capsys):
    """A noqa naming its rule but no reason is a finding; a bare noqa is too; with a reason it passes."""
    root = _tree(tmp_path, {MODULE: "f = lambda: 1  # noqa: E731\ng = lambda: 2  # noqa\n"})
    status, out = _check(root, "ruff", capsys)
    assert 1 == status
    assert f"{MODULE}:1: suppression `# noqa: E731` names no reason" in out
    assert f"{MODULE}:2: suppression a bare `# noqa` silences every rule" in out
    (root / MODULE).write_text("f = lambda: 1  # noqa: E731 - why: a one-line stand-in\n")
    assert 0 == _check(root, "ruff", capsys)[0]


def test_ruff_counts_repeated_findings(tmp_path, capsys):
    """A second finding with a baselined key (same file, code, message) is new, and both places are shown."""
    root = _tree(tmp_path, {MODULE: "def f(x):\n    if not x in (1, 2):\n        return 1\n"})
    _refresh(root, "ruff", capsys)
    (root / MODULE).write_text("def f(x):\n    if not x in (1, 2):\n        return 1\n    if not x in (3,):\n        return 2\n")
    status, out = _check(root, "ruff", capsys)
    assert 1 == status
    assert "2 found where the baseline has 1" in out
    assert f"{MODULE}:2: E713" in out and f"{MODULE}:4: E713" in out


def test_mypy_is_strict_for_new_code(tmp_path, capsys):
    """A function without annotations in a package's src is no-untyped-def under mypy.ini's strict."""
    root = _tree(tmp_path, {MODULE: "def double(x):\n    return 2 * x\n"})
    _round_trip(root, "mypy", f"{MODULE}:1: no-untyped-def Function is missing a type annotation",
                {MODULE: "def double(x: int) -> int:\n    return 2 * x\n"}, capsys)


def test_mypy_wants_a_code_and_a_reason_on_every_type_ignore(tmp_path, capsys):
    """A bare type: ignore and one without a reason are findings; with both it passes."""
    source = "import random\n\nA = random._urandom  # type: ignore\nB = random._urandom  # type: ignore[attr-defined]\n"
    root = _tree(tmp_path, {MODULE: source})
    status, out = _check(root, "mypy", capsys)
    assert 1 == status
    assert f"{MODULE}:3: suppression a bare `# type: ignore`" in out
    assert f"{MODULE}:4: suppression `# type: ignore[attr-defined]` names no reason" in out
    (root / MODULE).write_text("import random\n\nB = random._urandom  # type: ignore[attr-defined]  # private to random\n")
    assert 0 == _check(root, "mypy", capsys)[0]


READER = "packages/prover/reader/planted.mjs"


def test_tsc_fails_on_a_planted_finding(tmp_path, capsys):
    """A JSDoc type the code breaks is TS2322 at its line, with the pinned TypeScript."""
    root = _tree(tmp_path, {READER: '/** @type {number} */\nexport const n = "one";\n'})
    _round_trip(root, "tsc", f"{READER}:2: TS2322 Type 'string' is not assignable to type 'number'.",
                {READER: "/** @type {number} */\nexport const n = 1;\n"}, capsys)


def test_tsc_wants_a_reason_on_every_directive(tmp_path, capsys):
    """@ts-ignore without a reason is a finding; with one it passes."""
    root = _tree(tmp_path, {READER: "// @ts-ignore\nexport const n = 1;\n"})
    status, out = _check(root, "tsc", capsys)
    assert 1 == status
    assert f"{READER}:1: suppression `@ts-ignore` names no reason" in out
    (root / READER).write_text("// @ts-ignore: kept to show the rule\nexport const n = 1;\n")
    assert 0 == _check(root, "tsc", capsys)[0]


def test_compare_keys_ignore_line_numbers():
    """A baselined finding that moved lines is neither new nor gone."""
    baseline = collections.Counter({("a.py", "E713", "m"): 1})
    assert lint.compare([lint.Finding("a.py", 40, "E713", "m")], baseline).clean
    moved_file = lint.compare([lint.Finding("b.py", 1, "E713", "m")], baseline)
    assert 1 == len(moved_file.new) and 1 == len(moved_file.gone)


def test_refresh_outside_bazel_run_needs_a_root(monkeypatch):
    """--update-baselines writes into the checkout, so it refuses to guess where that is."""
    monkeypatch.delenv("BUILD_WORKSPACE_DIRECTORY", raising=False)
    with pytest.raises(SystemExit):
        lint.main(["--update-baselines"])


def test_keys_hold_no_line_numbers():
    """A message naming another line ("already defined on line 249") keys without it."""
    finding = lint.Finding("a.py", 261, "no-redef", 'Name "values" already defined on line 249')
    assert ("a.py", "no-redef", 'Name "values" already defined on line N') == finding.key
