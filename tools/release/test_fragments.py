"""A change to packages/ brings a changelog fragment, or its commit message says why not.

Each test makes a small git repository with the real towncrier.toml, commits the
case, and runs the check over the commits after the first.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import fragments

ROOT = Path(__file__).absolute().parents[2]


class Repo:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.git("init", "-q")
        shutil.copy(ROOT / "towncrier.toml", path / "towncrier.toml")
        self.commit("start", {"README.md": "x\n"})
        self.base = self.git("rev-parse", "HEAD").strip()

    def git(self, *args: str) -> str:
        return subprocess.run(["git", "-C", str(self.path), "-c", "user.name=t", "-c", "user.email=t@example.invalid",
                               *args], check=True, capture_output=True, text=True).stdout

    def commit(self, message: str, files: dict[str, str]) -> None:
        for name, text in files.items():
            (self.path / name).parent.mkdir(parents=True, exist_ok=True)
            (self.path / name).write_text(text)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)

    def problems(self) -> list[str]:
        return fragments.problems(self.path, self.base)


@pytest.fixture
def repo(tmp_path):
    return Repo(tmp_path)


def test_a_package_change_without_a_fragment_fails(repo):
    """The one case the rule exists for: named by commit and subject, with what to do."""
    repo.commit("engine: faster shrinking", {"packages/engine/src/x.py": "1\n"})
    found = repo.problems()
    assert 1 == len(found), found
    assert "'engine: faster shrinking': changes packages/ but adds no changelog.d/ fragment" in found[0]
    assert "'Changelog: none, <why>'" in found[0]


def test_a_package_change_with_a_fragment_passes(repo):
    repo.commit("engine: faster shrinking", {"packages/engine/src/x.py": "1\n",
                                              "changelog.d/12.change.md": "Shrinking is now faster.\n"})
    assert [] == repo.problems()


def test_a_package_change_whose_message_says_why_passes(repo):
    """'Changelog: none' with a reason, on a line of its own."""
    repo.commit("engine tests: one more case\n\nChangelog: none, tests only", {"packages/engine/tests/t.py": "1\n"})
    assert [] == repo.problems()


@pytest.mark.parametrize("message", [
    "engine: refactor\n\nChangelog: none",
    "engine: refactor\n\nno changelog needed: Changelog: none, refactor",
    "engine: refactor\n\nChangelog: maybe later",
])
def test_an_exemption_without_a_reason_or_not_on_its_own_line_fails(repo, message):
    repo.commit(message, {"packages/engine/src/x.py": "1\n"})
    assert 1 == len(repo.problems())


def test_a_change_outside_packages_needs_nothing(repo):
    repo.commit("docs: typo", {"docs/a.md": "1\n"})
    assert [] == repo.problems()


def test_a_fragment_of_an_unknown_type_fails(repo):
    """changelog.d/12.feat.md is not a type towncrier.toml declares; the message lists the types."""
    repo.commit("engine: x", {"packages/engine/src/x.py": "1\n", "changelog.d/12.feat.md": "x\n"})
    found = repo.problems()
    assert 2 == len(found), found
    assert "changelog.d/12.feat.md is not a fragment name" in found[0]
    assert "breaking, feature, change, fix, doc" in found[0]


def test_each_commit_is_judged_on_its_own(repo):
    """A fragment in a later commit does not cover an earlier one; commits are listed oldest first."""
    repo.commit("first", {"packages/core/src/a.py": "1\n"})
    repo.commit("second", {"packages/core/src/b.py": "1\n", "changelog.d/+b.fix.md": "Fixed b.\n"})
    found = repo.problems()
    assert 1 == len(found) and "'first'" in found[0], found


def test_the_command_exits_1_on_a_problem_and_2_on_an_unknown_revision(repo):
    repo.commit("engine: x", {"packages/engine/src/x.py": "1\n"})
    script = str(ROOT / "tools/release/fragments.py")
    failed = subprocess.run([sys.executable, script, "--repo", str(repo.path), "--base", repo.base],
                            capture_output=True, text=True)
    assert 1 == failed.returncode
    assert "adds no changelog.d/ fragment" in failed.stderr
    unknown = subprocess.run([sys.executable, script, "--repo", str(repo.path), "--base", "no-such-rev"],
                             capture_output=True, text=True)
    assert 2 == unknown.returncode


def test_commits_made_before_the_rule_are_not_judged(repo):
    """The commit that adds tools/release/fragments.py starts the rule; an older change passes, a newer one fails."""
    repo.commit("old engine change", {"packages/engine/src/old.py": "1\n"})
    repo.commit("add the rule", {fragments.RULE_FILE: "# the check\n"})
    assert [] == repo.problems()
    repo.commit("new engine change", {"packages/engine/src/new.py": "1\n"})
    found = repo.problems()
    assert 1 == len(found) and "'new engine change'" in found[0], found


def test_the_start_file_moves_the_rule_later(repo):
    """A change made before the last commit that touched changelog.d/.rule-start is not judged; one after is."""
    repo.commit("add the rule", {fragments.RULE_FILE: "# the check\n"})
    repo.commit("engine change without a fragment", {"packages/engine/src/a.py": "1\n"})
    assert 1 == len(repo.problems())
    repo.commit("move the start", {fragments.RULE_START_FILE: "covered by the fragments of this commit\n"})
    assert [] == repo.problems()
    repo.commit("later engine change", {"packages/engine/src/b.py": "1\n"})
    found = repo.problems()
    assert 1 == len(found) and "'later engine change'" in found[0], found
