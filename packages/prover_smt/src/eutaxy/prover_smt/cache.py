"""The engine's answers kept by what they depend on, so CI does not re-prove (or flip-flop) on unchanged files.

A key is the SHA-256 of the module's source, the spec file's, every source
file the spec file's imports resolve to (``SpecModule.sources``, so a changed
helper the module or the spec imports re-proves, whether or not the reader
followed it into SpecIR), the engine's version (the pinned Z3 and a digest of
this package's own sources, so a changed encoding re-proves), the resource
limit, and the property with the bodies it reaches as SpecIR (so a changed
reader re-proves too). Entries live under
``<cache>/proofs/smt/<key>.json``; an unreadable entry is a miss.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Optional

from eutaxy.prover.engine import SpecVerdict
from eutaxy.spec import Property, SpecModule

from eutaxy.prover.toolchains import cache_dir

from .toolchain import Z3_VERSION

#: Bumped when an entry's shape changes.
FORMAT = 1


@lru_cache(maxsize=1)
def engine_digest() -> str:
    """Z3's version and a digest of this package's sources: what "the engine's version" means for the cache."""
    h = hashlib.sha256(f"z3 {Z3_VERSION}\n".encode())
    here = Path(__file__).resolve().parent
    for path in sorted(here.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _file_digest(path: Optional[str]) -> str:
    if not path:
        return "-"
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return "unreadable"


def key(module: SpecModule, prop: Property, rlimit: int) -> str:
    h = hashlib.sha256()
    parts = {
        "format": FORMAT, "engine": engine_digest(), "rlimit": rlimit,
        "module": _file_digest(module.module), "spec": _file_digest(module.spec),
        # By content only, in the reader's order: the same files elsewhere give the same key.
        "sources": [_file_digest(source) for source in module.sources],
        "property": prop.to_data(), "functions": [f.to_data() for f in module.functions],
    }
    h.update(json.dumps(parts, sort_keys=True).encode())
    return h.hexdigest()


def _path(k: str) -> Path:
    return cache_dir() / "proofs" / "smt" / f"{k}.json"


def load(k: str) -> Optional[SpecVerdict]:
    try:
        return SpecVerdict.from_data(json.loads(_path(k).read_text()))
    except (OSError, ValueError, KeyError):
        return None


def store(k: str, verdict: SpecVerdict) -> None:
    path = _path(k)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(verdict.to_data(), sort_keys=True))
        os.replace(tmp, path)
    except OSError:
        pass  # a cache that cannot be written costs a re-proof, nothing else
