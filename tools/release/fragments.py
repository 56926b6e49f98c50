"""Every change to packages/ brings a changelog fragment, or its commit says why not.

    tools/release/fragments.py --base REV [--head REV] [--repo DIR]

For each commit in BASE..HEAD (merges skipped) that touches ``packages/``: it
passes if it adds or changes a fragment ``changelog.d/<name>.<type>.md`` of a
known type, or if its message has a line ``Changelog: none, <why>`` (any
separator, a reason of at least one word). A fragment of an unknown type fails
whatever the commit touches. Commits older than the rule (the commit that added
this file, and its ancestors) are not judged. Exit 0 every commit passes, 1 some do not (each
named with its subject and what to do), 2 bad arguments or an unknown revision.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import tomllib

#: The fragment types towncrier.toml declares, read from it (kept here as the fallback for a tree without it).
DEFAULT_TYPES = ("breaking", "feature", "change", "fix", "doc")
#: The file whose first commit starts the rule: commits made before it are not judged by it.
RULE_FILE = "tools/release/fragments.py"
#: Moves the rule's start later: commits up to the last one that changed this file are not
#: judged. Changed only when the changes before it are covered by fragments written then.
RULE_START_FILE = "changelog.d/.rule-start"
#: Files in changelog.d/ that are not fragments.
NOT_FRAGMENTS = {"README.md", ".gitignore", ".rule-start"}
#: "Changelog: none" and a reason: at least one word after a separator.
EXEMPTION = re.compile(r"^changelog:\s*none\b[\s,;:.(—–-]+\w", re.IGNORECASE | re.MULTILINE)


class GitError(Exception):
    """git could not answer (an unknown revision, not a repository)."""


def fragment_types(repo: Path) -> tuple[str, ...]:
    config = repo / "towncrier.toml"
    if not config.is_file():
        return DEFAULT_TYPES
    types = tomllib.loads(config.read_text())["tool"]["towncrier"].get("type", [])
    return tuple(entry["directory"] for entry in types) or DEFAULT_TYPES


def fragment_type(path: str) -> str | None:
    """The type a changelog.d/ file name declares (``12.fix.md`` -> ``fix``), or None for a non-fragment."""
    name = path.removeprefix("changelog.d/")
    if "/" in name or name in NOT_FRAGMENTS:
        return None
    parts = name.split(".")
    return parts[-2] if len(parts) >= 3 and parts[-1] == "md" else ""


def problems(repo: Path, base: str, head: str = "HEAD") -> list[str]:
    """One message per commit of base..head that breaks the rule."""
    types = fragment_types(repo)
    found = []
    for commit in _git(repo, "rev-list", "--no-merges", "--reverse", f"{base}..{head}", *_before_the_rule(repo)).split():
        subject = _git(repo, "log", "-1", "--format=%s", commit).strip()
        message = _git(repo, "log", "-1", "--format=%B", commit)
        changes = [line.split("\t") for line in
                   _git(repo, "diff-tree", "--no-commit-id", "--name-status", "-r", "--root", commit).splitlines() if line]
        paths = [fields[-1] for fields in changes]
        added = [fields[-1] for fields in changes if fields[0][0] in "AMRC" and fields[-1].startswith("changelog.d/")]
        short = commit[:12]
        fragments = []
        for path in added:
            kind = fragment_type(path)
            if kind is None:
                continue
            if kind not in types:
                found.append(f"{short} {subject!r}: {path} is not a fragment name: expected "
                             f"changelog.d/<issue or +name>.<type>.md with type one of {', '.join(types)}")
                continue
            fragments.append(path)
        if not any(path.startswith("packages/") for path in paths):
            continue
        if fragments or EXEMPTION.search(message):
            continue
        found.append(f"{short} {subject!r}: changes packages/ but adds no changelog.d/ fragment; add one "
                     f"(changelog.d/README.md) or say why none is needed on a line of the message: "
                     f"'Changelog: none, <why>'")
    return found


def _before_the_rule(repo: Path) -> list[str]:
    """``^<commit>`` for the commit that added this check and for the last that moved the start.

    The commits made before there was a rule, or before its start was moved, pass.
    """
    added = _git(repo, "log", "--diff-filter=A", "--format=%H", "--", RULE_FILE).split()
    moved = _git(repo, "log", "-1", "--format=%H", "--", RULE_START_FILE).split()
    return [f"^{commit}" for commit in (added[-1:] + moved)]


def _git(repo: Path, *args: str) -> str:
    result = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    if result.returncode != 0:
        raise GitError(f"git {' '.join(args)}: {result.stderr.strip()}")
    return result.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", required=True, help="the commit the change starts from (excluded)")
    parser.add_argument("--head", default="HEAD")
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[2])
    args = parser.parse_args(argv)
    try:
        found = problems(args.repo, args.base, args.head)
    except GitError as error:
        print(f"fragments: {error}", file=sys.stderr)
        return 2
    for line in found:
        print(f"fragments: {line}", file=sys.stderr)
    if found:
        return 1
    count = _git(args.repo, "rev-list", "--no-merges", "--count", f"{args.base}..{args.head}").strip()
    print(f"fragments: ok, {count} commit(s) in {args.base}..{args.head}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
