"""One version for the ten distributions: read it, check it, move it.

The version lives in the file ``VERSION`` at the repository's root. Every
``packages/*/pyproject.toml`` repeats it twice over: as its own ``version`` and in
each exact pin of a sibling (``"eutaxy-core==0.1.0"``), because the ten are
released in lockstep and a user's ``pip install eutaxy`` must get one matching
set. ``eutaxy --version`` prints it from ``eutaxy.cli.main.VERSION``.
:func:`disagreements` lists every place that says otherwise (a Bazel test fails on
any); :func:`bump` rewrites them all, line by line, so the diff shows only the
version moving.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

#: The version file, relative to the root: the one place the version is written by hand.
VERSION_FILE = "VERSION"
#: The CLI's copy, printed by ``eutaxy --version`` (no metadata lookup, so it works uninstalled).
CLI_MAIN = "packages/cli/src/eutaxy/cli/main.py"
#: A release version: N.N.N with an optional pre-release (aN, bN, rcN); what the tag says after ``v``.
VERSION_PATTERN = re.compile(r"\d+\.\d+\.\d+(?:(?:a|b|rc)\d+)?")

_CLI_VERSION_LINE = re.compile(r'^VERSION = "([^"]*)"$', re.MULTILINE)
_PYPROJECT_VERSION_LINE = re.compile(r'^version = "([^"]*)"$', re.MULTILINE)


class VersionError(Exception):
    """The version file or a command's argument is not a release version."""


def read_version(root: Path) -> str:
    text = (root / VERSION_FILE).read_text()
    version = text.strip()
    if not VERSION_PATTERN.fullmatch(version):
        raise VersionError(f"{root / VERSION_FILE}: expected a version like 1.2.3 or 1.2.3rc1, got {version!r}")
    return version


def pyprojects(root: Path) -> list[Path]:
    """Every distribution's pyproject.toml, in a fixed order."""
    return sorted((root / "packages").glob("*/pyproject.toml"))


def distribution_names(root: Path) -> set[str]:
    return {tomllib.loads(path.read_text())["project"]["name"] for path in pyprojects(root)}


def _pin_pattern(names: set[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))
    return re.compile(rf'"({alternatives})==([^"]*)"')


def disagreements(root: Path) -> list[str]:
    """One line per place whose version is not the version file's, naming file, line and both versions."""
    expected = read_version(root)
    names = distribution_names(root)
    found: list[str] = []
    for path in pyprojects(root):
        text = path.read_text()
        project = tomllib.loads(text)["project"]
        if project.get("version") != expected:
            found.append(f"{_where(root, path, text, _PYPROJECT_VERSION_LINE)}: version is "
                         f"{project.get('version')!r}, expected {expected!r} (the version file)")
        for requirement in project.get("dependencies", []):
            name = re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0]
            if name not in names:
                continue
            if requirement != f"{name}=={expected}":
                line = _line_of(text, f'"{requirement}"')
                found.append(f"{path.relative_to(root)}:{line}: sibling pin {requirement!r}, expected "
                             f"'{name}=={expected}' (siblings are pinned exactly to the one version)")
    cli = root / CLI_MAIN
    text = cli.read_text()
    match = _CLI_VERSION_LINE.search(text)
    if match is None or match.group(1) != expected:
        got = match.group(1) if match else "no VERSION line"
        found.append(f"{_where(root, cli, text, _CLI_VERSION_LINE)}: eutaxy --version says {got!r}, expected {expected!r}")
    return found


def bump(root: Path, new: str) -> list[Path]:
    """Writes ``new`` into the version file, every pyproject's version and sibling pins, and the CLI.

    Returns the files changed. Refuses (VersionError) a version that is not a release
    version, or the current one, or a tree that disagrees with itself before the bump.
    """
    if not VERSION_PATTERN.fullmatch(new):
        raise VersionError(f"expected a version like 1.2.3 or 1.2.3rc1, got {new!r}")
    old = read_version(root)
    if new == old:
        raise VersionError(f"the version is already {new}")
    before = disagreements(root)
    if before:
        raise VersionError("the tree disagrees with itself before the bump; fix these first:\n  " + "\n  ".join(before))
    names = distribution_names(root)
    pin = _pin_pattern(names)
    changed = [root / VERSION_FILE]
    (root / VERSION_FILE).write_text(new + "\n")
    for path in pyprojects(root):
        text = path.read_text()
        text = _PYPROJECT_VERSION_LINE.sub(f'version = "{new}"', text, count=1)
        text = pin.sub(lambda m: f'"{m.group(1)}=={new}"', text)
        path.write_text(text)
        changed.append(path)
    cli = root / CLI_MAIN
    cli.write_text(_CLI_VERSION_LINE.sub(f'VERSION = "{new}"', cli.read_text(), count=1))
    changed.append(cli)
    after = disagreements(root)
    assert not after, after
    return changed


def _line_of(text: str, needle: str) -> int:
    index = text.find(needle)
    return text.count("\n", 0, index) + 1 if index >= 0 else 0


def _where(root: Path, path: Path, text: str, pattern: re.Pattern[str]) -> str:
    match = pattern.search(text)
    line = text.count("\n", 0, match.start()) + 1 if match else 0
    return f"{path.relative_to(root)}:{line}"
