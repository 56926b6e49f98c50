"""The ten distributions agree on one version, and the bump moves every copy of it.

The real tree is checked first (this is the test that fails when any pyproject
disagrees); then copies of its version-bearing files are broken or bumped, to show
the check names each kind of disagreement and the bump leaves none.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import bump
import versions

# Not resolved: under Bazel this is the runfiles tree, where the files are the test's data.
ROOT = Path(__file__).absolute().parents[2]
PACKAGES = ("spec", "core", "engine", "cloudflare", "aws", "prover", "prover_smt", "prover_lean", "report", "cli")


def test_the_tree_agrees_with_the_version_file():
    """Every pyproject's version, every exact sibling pin and eutaxy --version say what VERSION says."""
    assert [] == versions.disagreements(ROOT)
    assert 10 == len(versions.pyprojects(ROOT))


def test_every_sibling_is_pinned_exactly():
    """A sibling named without ==VERSION would let pip mix releases; there is none."""
    version = versions.read_version(ROOT)
    names = versions.distribution_names(ROOT)
    for path in versions.pyprojects(ROOT):
        for requirement in tomllib.loads(path.read_text())["project"]["dependencies"]:
            if requirement.split("=")[0] in names:
                assert requirement.endswith(f"=={version}"), (path, requirement)


@pytest.fixture
def tree(tmp_path):
    """A copy of the files that carry the version."""
    shutil.copy(ROOT / "VERSION", tmp_path / "VERSION")
    for name in PACKAGES:
        (tmp_path / "packages" / name).mkdir(parents=True)
        shutil.copy(ROOT / "packages" / name / "pyproject.toml", tmp_path / "packages" / name / "pyproject.toml")
    main = tmp_path / versions.CLI_MAIN
    main.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / versions.CLI_MAIN, main)
    return tmp_path


def test_a_pyproject_with_another_version_is_named(tree):
    """One distribution's own version moved by hand: the file, its line and both versions."""
    path = tree / "packages" / "report" / "pyproject.toml"
    old = versions.read_version(tree)
    path.write_text(path.read_text().replace(f'version = "{old}"', 'version = "9.9.9"'))
    found = versions.disagreements(tree)
    assert 1 == len(found), found
    assert found[0].startswith("packages/report/pyproject.toml:")
    assert f"version is '9.9.9', expected '{old}'" in found[0]


def test_a_sibling_pin_with_another_version_is_named(tree):
    """One pin moved by hand (cli pinning an older core): named with its line."""
    path = tree / "packages" / "cli" / "pyproject.toml"
    old = versions.read_version(tree)
    path.write_text(path.read_text().replace(f'"eutaxy-core=={old}"', '"eutaxy-core==0.0.9"'))
    found = versions.disagreements(tree)
    assert 1 == len(found), found
    assert "packages/cli/pyproject.toml:" in found[0]
    assert f"sibling pin 'eutaxy-core==0.0.9', expected 'eutaxy-core=={old}'" in found[0]


def test_a_loose_sibling_pin_is_named(tree):
    """>= instead of == is a disagreement too."""
    path = tree / "packages" / "aws" / "pyproject.toml"
    old = versions.read_version(tree)
    path.write_text(path.read_text().replace(f'"eutaxy-engine=={old}"', f'"eutaxy-engine>={old}"'))
    assert 1 == len(versions.disagreements(tree))


def test_the_cli_version_is_checked(tree):
    """eutaxy --version printing another version is named."""
    main = tree / versions.CLI_MAIN
    old = versions.read_version(tree)
    main.write_text(main.read_text().replace(f'VERSION = "{old}"', 'VERSION = "0.0.1"'))
    found = versions.disagreements(tree)
    assert 1 == len(found) and "eutaxy --version says '0.0.1'" in found[0], found


def test_bump_moves_every_version_and_pin_and_only_those_lines(tree):
    """After bump to 7.8.9 nothing disagrees, and each changed line is a version line or a sibling pin."""
    old = versions.read_version(tree)
    before = {path: path.read_text().splitlines() for path in tree.rglob("*") if path.is_file()}
    changed = versions.bump(tree, "7.8.9")
    assert "7.8.9" == versions.read_version(tree)
    assert [] == versions.disagreements(tree)
    assert 12 == len(changed)
    pins = 0
    for path, lines in before.items():
        after = path.read_text().splitlines()
        assert len(lines) == len(after), path
        for old_line, new_line in zip(lines, after):
            if old_line != new_line:
                assert old_line.replace(old, "7.8.9") == new_line, (path, old_line, new_line)
                pins += "==" in old_line
    names = versions.distribution_names(tree)
    sibling_pins = sum(1 for path in versions.pyprojects(tree)
                       for requirement in tomllib.loads(path.read_text())["project"]["dependencies"]
                       if requirement.split("=")[0] in names)
    assert sibling_pins == pins > 20  # every sibling pin moved (22 when this was written)


@pytest.mark.parametrize("bad", ["0.2", "v0.2.0", "0.2.0-beta", ""])
def test_bump_refuses_what_is_not_a_release_version(tree, bad):
    with pytest.raises(versions.VersionError, match="expected a version like 1.2.3"):
        versions.bump(tree, bad)


def test_bump_refuses_a_tree_that_already_disagrees(tree):
    """A hand-edited pin is not silently papered over by a bump."""
    path = tree / "packages" / "cli" / "pyproject.toml"
    old = versions.read_version(tree)
    path.write_text(path.read_text().replace(f'"eutaxy-core=={old}"', '"eutaxy-core==0.0.9"'))
    with pytest.raises(versions.VersionError, match="disagrees with itself"):
        versions.bump(tree, "7.8.9")
    assert old == versions.read_version(tree)


def test_the_bump_command_makes_one_commit_with_versions_changelog_and_fragments(tree):
    """tools/release/bump.py in a git repository: one commit, the fragment rendered and removed."""
    shutil.copy(ROOT / "towncrier.toml", tree / "towncrier.toml")
    shutil.copy(ROOT / "CHANGELOG.md", tree / "CHANGELOG.md")
    (tree / "changelog.d").mkdir()
    (tree / "changelog.d" / "README.md").write_text("fragments\n")
    (tree / "changelog.d" / "7.fix.md").write_text("`eutaxy check` now exits 2 on a bad seed.\n")
    (tree / "unrelated.txt").write_text("someone else's work in progress\n")
    git = ["git", "-C", str(tree), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["reset", "-q", "unrelated.txt"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "start"], check=True)
    env_git = ["env", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t",
               "GIT_COMMITTER_EMAIL=t@example.invalid"]
    result = subprocess.run(env_git + [sys.executable, str(ROOT / "tools/release/bump.py"), "7.8.9",
                                       "--date", "2026-12-01", "--root", str(tree)], capture_output=True, text=True)
    assert 0 == result.returncode, result.stderr
    log = subprocess.run(git + ["log", "--format=%s"], capture_output=True, text=True, check=True).stdout.split("\n")
    assert ["Release 7.8.9", "start"] == [line for line in log if line]
    shown = subprocess.run(git + ["show", "--stat", "--format=", "HEAD"], capture_output=True, text=True).stdout
    assert "changelog.d/7.fix.md" in shown and "CHANGELOG.md" in shown and "VERSION" in shown
    assert 10 == shown.count("pyproject.toml")
    assert not (tree / "changelog.d" / "7.fix.md").exists()
    changelog = (tree / "CHANGELOG.md").read_text()
    assert "## 7.8.9 (2026-12-01)" in changelog
    assert "`eutaxy check` now exits 2 on a bad seed." in changelog
    status = subprocess.run(git + ["status", "--porcelain"], capture_output=True, text=True).stdout
    assert "?? unrelated.txt\n" == status


def test_bump_paths_are_listed_in_the_fragment_helper(tree):
    """fragment_paths skips the README: it is not a fragment."""
    (tree / "changelog.d").mkdir()
    (tree / "changelog.d" / "README.md").write_text("x")
    (tree / "changelog.d" / "+a.doc.md").write_text("x")
    assert ["+a.doc.md"] == [path.name for path in bump.fragment_paths(tree)]
