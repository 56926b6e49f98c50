"""What the engines' answer caches share: the digests a key is made of and an entry's file.

Each engine (``eutaxy.prover_smt.cache``, ``eutaxy.prover_lean.cache``) decides what its key
holds and what an entry says; the file digests, the digest of an engine's own sources, where
an entry lives and how it is written whole or not at all are written once, here.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Iterable, Optional

from eutaxy.prover.toolchains import cache_dir

__all__ = ["entry_path", "file_digest", "read_entry", "sources_digest", "write_entry"]


def file_digest(path: Optional[str | Path], *, missing: str = "-", unreadable: str = "unreadable") -> str:
    """The SHA-256 of a file's bytes; ``missing`` when no path is given, ``unreadable`` when it cannot be read."""
    if not path:
        return missing
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return unreadable


def sources_digest(header: str, folder: Path, patterns: Iterable[str]) -> str:
    """``header`` (the pinned tool's version) and every file of ``folder`` matching ``patterns``, by name and content."""
    h = hashlib.sha256(f"{header}\n".encode())
    for path in sorted(path for pattern in patterns for path in folder.glob(pattern)):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def entry_path(engine: str, key: str) -> Path:
    """Where the entry of ``key`` lives: ``<cache>/proofs/<engine>/<key>.json``."""
    return cache_dir() / "proofs" / engine / f"{key}.json"


def read_entry(path: Path) -> Any:
    """The entry's JSON, or None when there is none or it cannot be read (a miss)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def write_entry(path: Path, data: Any) -> None:
    """Write an entry whole or not at all; a cache that cannot be written costs a re-proof, nothing else."""
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass
    finally:
        # An interruption between the write and the rename leaves no partial file behind.
        tmp.unlink(missing_ok=True)
