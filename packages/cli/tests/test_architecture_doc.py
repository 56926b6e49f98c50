"""docs/architecture.md's "How to add ..." lists name only files that exist.

Each list is the files a contributor writes or edits to add a binding kind, an invariant kind or
an exploration strategy; a file renamed or removed without the list following would send them
to nothing. A name in backticks that looks like a file or folder (a path with a ``/``, or a
name with a source extension) must exist: as written from the repository's root, or as the end
of a path that does (``core/invariants.py``, ``seeded.py``). A name holding a placeholder
(``bindings/<kind>.py``) is the file to write, so it is not looked for; its folder is. A link
to another page must name a page of docs/.
"""

from __future__ import annotations

import re
from pathlib import Path

#: The checkout (this file resolves through Bazel's runfiles to it, as the other docs tests' do).
REPO = Path(__file__).resolve().parents[3]
DOC = REPO / "docs" / "architecture.md"

#: What a file named in a list ends with.
_EXTENSIONS = (".py", ".mjs", ".json", ".md", ".ts", ".bazel")
#: Folders no list points into.
_SKIPPED = {".git", "node_modules", "__pycache__", ".venv", ".hypothesis"}


def _how_to_sections(text: str) -> dict[str, str]:
    """Each ``## How to add ...`` section's heading -> its text, up to the next heading of its level."""
    sections = re.split(r"^## ", text, flags=re.MULTILINE)
    return {part.splitlines()[0]: part for part in sections if part.startswith("How to add")}


def _named_paths(section: str) -> list[str]:
    """The backticked names in a section that look like files or folders."""
    names = re.findall(r"`([^`\s]+)`", section)
    return [name for name in names if "/" in name or name.endswith(_EXTENSIONS)]


def _repository_paths() -> list[str]:
    """Every file and folder below the checkout, relative to it (``/``-separated)."""
    found = []
    stack = [REPO]
    while stack:
        folder = stack.pop()
        for child in folder.iterdir():
            if child.name in _SKIPPED or child.name.startswith("bazel-") or child.is_symlink():
                continue
            found.append(child.relative_to(REPO).as_posix())
            if child.is_dir():
                stack.append(child)
    return found


def _exists(name: str, paths: list[str]) -> bool:
    name = name.rstrip("/")
    if "<" in name:
        # The file to write: its folder must exist.
        name = name.rsplit("/", 1)[0]
    if (REPO / name).exists():
        return True
    return any(path.endswith("/" + name) for path in paths)


def test_each_how_to_add_list_names_only_files_that_exist():
    sections = _how_to_sections(DOC.read_text(encoding="utf-8"))
    assert {"How to add a binding kind (Workers)", "How to add an invariant kind", "How to add an exploration strategy"} == set(sections)
    paths = _repository_paths()
    missing = {
        heading: [name for name in _named_paths(section) if not _exists(name, paths)] for heading, section in sections.items()
    }
    assert {heading: [] for heading in sections} == missing
    for heading, section in sections.items():
        assert _named_paths(section), f"{heading} names no file"
        for page in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", section):
            assert (DOC.parent / page).is_file(), f"{heading} links to {page}, which is no page of docs/"
