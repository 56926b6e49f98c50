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
import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Optional

from eutaxy.prover.engine import SpecVerdict
from eutaxy.prover.toolchains import cache_dir
from eutaxy.spec import SpecModule

from .toolchain import LEAN_VERSION, FoundLean

#: Bumped when an entry's shape changes.
FORMAT = 1


@lru_cache(maxsize=1)
def engine_digest() -> str:
    """Lean's pinned version and a digest of this package's sources and tables."""
    h = hashlib.sha256(f"lean {LEAN_VERSION}\n".encode())
    here = Path(__file__).resolve().parent
    for path in sorted([*here.glob("*.py"), *here.glob("*.json")]):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _file_digest(path: Optional[str]) -> str:
    if not path:
        return "-"
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return "unreadable"


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
        "module": _file_digest(module.module), "spec": _file_digest(module.spec),
        "sources": [_file_digest(source) for source in module.sources],
        "emitted": emitted, "refused": {name: v.to_data() for name, v in sorted(refused.items())},
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _path(k: str) -> Path:
    return cache_dir() / "proofs" / "lean" / f"{k}.json"


def load(k: str) -> Optional[tuple[dict[str, SpecVerdict], Optional[dict[str, tuple[str, str]]]]]:
    """The module's answers and open goals (None: Lean gave no answer to read), or None on a miss."""
    try:
        data = json.loads(_path(k).read_text(encoding="utf-8"))
        verdicts = {name: SpecVerdict.from_data(v) for name, v in data["verdicts"].items()}
        goals = data["goals"]
        return verdicts, None if goals is None else {name: (g[0], g[1]) for name, g in goals.items()}
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


def store(k: str, verdicts: Mapping[str, SpecVerdict], goals: Optional[Mapping[str, tuple[str, str]]]) -> None:
    path = _path(k)
    data: dict[str, Any] = {"verdicts": {name: v.to_data() for name, v in verdicts.items()},
                            "goals": None if goals is None else {name: list(g) for name, g in goals.items()}}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass  # a cache that cannot be written costs a re-proof, nothing else
