"""The Lean engine's answers kept by what they depend on, so CI does not re-prove (or flip-flop) on unchanged files.

A key is the SHA-256 of: the module's source, the spec file's and every source
file the spec's imports resolve to; the Lean file emitted (the definitions,
statements and any supplied proofs, so a changed reader or proof file
re-proves); the refusals decided before Lean ran; the engine's version (the
pinned Lean, the executable found, and a digest of this package's sources and
tables). Entries live under ``<cache>/proofs/lean/<key>.json``; an unreadable
entry is a miss. A run stopped at its deadline is never kept.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Optional

from eutaxy.prover.engine import SpecVerdict
from eutaxy.prover.answer_cache import entry_path, file_digest, read_entry, sources_digest, write_entry
from eutaxy.spec import SpecModule

from .toolchain import LEAN_VERSION, FoundLean

#: Bumped when an entry's shape changes.
FORMAT = 1


@lru_cache(maxsize=1)
def engine_digest() -> str:
    """Lean's pinned version and a digest of this package's sources and tables."""
    return sources_digest(f"lean {LEAN_VERSION}", Path(__file__).resolve().parent, ("*.py", "*.json"))


def _executable(found: FoundLean) -> str:
    """The Lean executable as it is now (a reinstall changes its size or time): part of the engine's version."""
    try:
        stat = found.lean.stat()
        return f"{found.lean}:{stat.st_size}:{stat.st_mtime_ns}"
    except OSError:
        return str(found.lean)


def key(module: SpecModule, found: FoundLean, emitted: str, refused: Mapping[str, SpecVerdict]) -> str:
    parts = {
        "format": FORMAT, "engine": engine_digest(), "lean": _executable(found),
        "module": file_digest(module.module), "spec": file_digest(module.spec),
        "sources": [file_digest(source) for source in module.sources],
        "emitted": emitted, "refused": {name: v.to_data() for name, v in sorted(refused.items())},
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _path(k: str) -> Path:
    return entry_path("lean", k)


def load(k: str) -> Optional[tuple[dict[str, SpecVerdict], Optional[dict[str, tuple[str, str]]]]]:
    """The module's answers and open goals (None: Lean gave no answer to read), or None on a miss."""
    data = read_entry(_path(k))
    try:
        verdicts = {name: SpecVerdict.from_data(v) for name, v in data["verdicts"].items()}
        goals = data["goals"]
        return verdicts, None if goals is None else {name: (g[0], g[1]) for name, g in goals.items()}
    except (ValueError, KeyError, TypeError, IndexError):
        return None


def store(k: str, verdicts: Mapping[str, SpecVerdict], goals: Optional[Mapping[str, tuple[str, str]]]) -> None:
    data: dict[str, Any] = {"verdicts": {name: v.to_data() for name, v in verdicts.items()},
                            "goals": None if goals is None else {name: list(g) for name, g in goals.items()}}
    write_entry(_path(k), data)
