"""Moves the one version, and renders the changelog, in one commit.

    tools/release/bump.py 0.2.0 [--date 2026-12-01] [--no-commit]

Writes the new version into VERSION, every packages/*/pyproject.toml (its own
version and each exact pin of a sibling) and the CLI's ``VERSION``; renders the
fragments under changelog.d/ into CHANGELOG.md with towncrier (which removes
them); then commits exactly those paths, and nothing else of the working tree,
as ``Release <version>``. Tag that commit ``v<version>`` and push the tag to
release (docs/ci.md). Exit 0 done, 1 a command failed, 2 bad input.
"""

from __future__ import annotations

import argparse
import datetime
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import versions  # noqa: E402 - after sys.path gets this folder

ROOT = Path(__file__).resolve().parents[2]
CHANGELOG = "CHANGELOG.md"
FRAGMENTS = "changelog.d"


def fragment_paths(root: Path) -> list[Path]:
    """The fragments towncrier will render (every file in changelog.d/ but its README and .gitignore)."""
    return sorted(path for path in (root / FRAGMENTS).iterdir()
                  if path.is_file() and path.name not in {"README.md", ".gitignore", "template.md"})


def render_changelog(root: Path, version: str, date: str) -> None:
    subprocess.run([sys.executable, "-m", "towncrier", "build", "--yes", "--version", version, "--date", date,
                    "--config", str(root / "towncrier.toml"), "--dir", str(root)], check=True, cwd=root)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("version", help="the new version, e.g. 0.2.0 or 0.2.0rc1")
    parser.add_argument("--date", default=datetime.date.today().isoformat(), help="the release date in CHANGELOG.md")
    parser.add_argument("--no-commit", action="store_true", help="change the files but do not commit")
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    root = args.root.resolve()
    fragments = fragment_paths(root)
    try:
        changed = versions.bump(root, args.version)
    except versions.VersionError as error:
        print(f"bump: {error}", file=sys.stderr)
        return 2
    try:
        render_changelog(root, args.version, args.date)
    except subprocess.CalledProcessError as error:
        print(f"bump: towncrier failed ({error}); the version files are changed, the changelog is not", file=sys.stderr)
        return 1
    paths = [str(path.relative_to(root)) for path in changed] + [CHANGELOG]
    paths += [str(path.relative_to(root)) for path in fragments]
    if args.no_commit:
        print("changed (not committed): " + " ".join(paths))
        return 0
    # Exactly these paths: the fragments' removal, the changelog and the version lines.
    existing = [path for path in paths if (root / path).exists()]
    removed = [path for path in paths if not (root / path).exists()]
    subprocess.run(["git", "add", "--", *existing], check=True, cwd=root)
    if removed:
        # towncrier may have removed them from the index already (git rm); --ignore-unmatch covers that.
        subprocess.run(["git", "rm", "-q", "--cached", "--ignore-unmatch", "--", *removed], check=True, cwd=root)
    subprocess.run(["git", "commit", "-q", "-m", f"Release {args.version}", "--", *paths], check=True, cwd=root)
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], check=True, cwd=root,
                          capture_output=True, text=True).stdout.strip()
    print(f"committed {head}: Release {args.version} ({len(paths)} paths); now: git tag v{args.version} {head}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
