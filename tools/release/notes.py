"""Prints one release's section of CHANGELOG.md: the release notes the workflow publishes.

    tools/release/notes.py 0.2.0 [--changelog CHANGELOG.md]

The section is everything under ``## 0.2.0 (...)`` up to the next ``## `` heading,
without the heading. Exit 0 printed, 2 no such section (the release commit was not
made with tools/release/bump.py, or the tag names another version).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def section(changelog: str, version: str) -> str | None:
    heading = re.compile(rf"^## {re.escape(version)}(?: \(.*\))?\s*$", re.MULTILINE)
    match = heading.search(changelog)
    if match is None:
        return None
    following = re.compile(r"^## ", re.MULTILINE).search(changelog, match.end())
    body = changelog[match.end():following.start() if following else len(changelog)]
    return body.strip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("version")
    parser.add_argument("--changelog", type=Path, default=ROOT / "CHANGELOG.md")
    args = parser.parse_args(argv)
    body = section(args.changelog.read_text(), args.version)
    if body is None:
        print(f"notes: {args.changelog}: no section '## {args.version}'; expected the one tools/release/bump.py "
              f"{args.version} renders", file=sys.stderr)
        return 2
    sys.stdout.write(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
