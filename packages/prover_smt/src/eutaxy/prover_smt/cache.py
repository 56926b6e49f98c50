"""The engine's answers kept by what they depend on, so CI does not re-prove (or flip-flop) on unchanged files.

A key is the SHA-256 of the module's source, the spec file's, every source
file the spec file's imports resolve to (``SpecModule.sources``, so a changed
helper the module or the spec imports re-proves, whether or not the reader
followed it into SpecIR), the engine's version (the pinned Z3 and a digest of
this package's own sources, so a changed encoding re-proves), the resource
limit, and the property with the bodies it reaches as SpecIR (so a changed
reader re-proves too). Entries live under
``<cache>/proofs/smt/<key>.json``; an unreadable entry is a miss.

Only answers are kept (the engine decides which: :attr:`.solve.Answer.cacheable`):
a run that was interrupted, crashed or was killed at its deadline is never
stored. An entry says what it is an answer of: the engine's name, its version
(Z3's and the engine digest), the step limit and the verdict; an entry whose
engine or limit is not the asking one's is a miss, whatever its key.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Optional

from eutaxy.prover.engine import SpecVerdict
from eutaxy.spec import Property, SpecModule

from eutaxy.prover.answer_cache import entry_path, file_digest, read_entry, sources_digest, write_entry

from .toolchain import Z3_VERSION

#: Bumped when an entry's shape changes (2: the entry names its engine, version and step limit).
FORMAT = 2
#: The engine whose answers this cache keeps.
ENGINE = "smt"


@lru_cache(maxsize=1)
def engine_digest() -> str:
    """Z3's version and a digest of this package's sources: what "the engine's version" means for the cache."""
    return sources_digest(f"z3 {Z3_VERSION}", Path(__file__).resolve().parent, ("*.py",))


def key(module: SpecModule, prop: Property, rlimit: int) -> str:
    h = hashlib.sha256()
    parts = {
        "format": FORMAT, "engine": engine_digest(), "rlimit": rlimit,
        "module": file_digest(module.module), "spec": file_digest(module.spec),
        # By content only, in the reader's order: the same files elsewhere give the same key.
        "sources": [file_digest(source) for source in module.sources],
        "property": prop.to_data(), "functions": [f.to_data() for f in module.functions],
    }
    h.update(json.dumps(parts, sort_keys=True).encode())
    return h.hexdigest()


def _path(k: str) -> Path:
    return entry_path(ENGINE, k)


def _entry_head(rlimit: int) -> dict[str, object]:
    """What an entry is an answer of: the engine, its version and the step limit."""
    return {"format": FORMAT, "engine": ENGINE, "version": Z3_VERSION, "engineDigest": engine_digest(),
            "rlimit": rlimit}


def load(k: str, *, rlimit: int) -> Optional[SpecVerdict]:
    """The verdict kept under ``k`` for this engine at this step limit, or None (a miss)."""
    entry = read_entry(_path(k))
    if not isinstance(entry, dict) or {f: entry.get(f) for f in _entry_head(rlimit)} != _entry_head(rlimit):
        return None
    try:
        return SpecVerdict.from_data(entry["verdict"])
    except (ValueError, KeyError, TypeError):
        return None


def store(k: str, verdict: SpecVerdict, *, rlimit: int) -> None:
    """Keep ``verdict``, the engine's answer at step limit ``rlimit``, under ``k`` (written whole or not at all)."""
    write_entry(_path(k), _entry_head(rlimit) | {"verdict": verdict.to_data()})
