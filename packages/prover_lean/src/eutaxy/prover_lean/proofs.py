"""Supplied proofs: ``domain.props.lean`` beside ``domain.props.ts``, and the goal files that start them.

A proof file holds lemmas first, then one ``-- proof: <property>`` part per
property with the tactics that prove it (an empty part supplies nothing, so
the engine's own script runs). The statement stays Eutaxy's: each is emitted
as a definition before any supplied text, and the theorem proving it is
Eutaxy's too (``theorem t_<property> : s_<property> := by unfold s_<property>``
followed by the part's tactics).

A file is refused whole, for every property it names, when it uses a word a
proof file may not use (:mod:`.words`), names a property the spec file does
not have, or names one twice. A file carrying the two SHA-256 header lines
(:data:`MODULE_HASH`, :data:`SPEC_HASH`) is stale once either file changed:
its proofs are not used and each property it names is UNKNOWN (gave_up)
saying which file moved. A file without the lines is checked as before.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Mapping, Optional, Union

import attrs

from eutaxy.prover.answer_cache import file_digest
from eutaxy.prover.engine import GAVE_UP, UNSUPPORTED_REASON
from eutaxy.spec import SpecModule

from .words import REFUSED_PREFIXES, REFUSED_WORDS, refused_words

PROOF_SUFFIX = ".props.lean"
GOALS_SUFFIX = ".goals.lean"
SPEC_SUFFIX = ".props.ts"
MODULE_HASH = "-- eutaxy module sha256:"
SPEC_HASH = "-- eutaxy spec sha256:"

_PART = re.compile(r"^-- proof: (?P<name>\S+)\s*$")
_HASH = re.compile(r"^-- eutaxy (?P<which>module|spec) sha256: (?P<digest>[0-9a-f]{64})(?: .*)?$")


def stem(spec: str | Path) -> Path:
    """``x/domain.props.ts`` -> ``x/domain``: the name the proof and goal files are built on."""
    path = Path(spec)
    name = path.name[: -len(SPEC_SUFFIX)] if path.name.endswith(SPEC_SUFFIX) else path.stem
    return path.with_name(name)


def proof_path(spec: str | Path) -> Path:
    return stem(spec).with_name(stem(spec).name + PROOF_SUFFIX)


def goals_path(spec: str | Path) -> Path:
    return stem(spec).with_name(stem(spec).name + GOALS_SUFFIX)


def sha256_of(path: Optional[str | Path]) -> str:
    """A file's SHA-256 as a goal file records it; "" when there is none or it cannot be read."""
    return file_digest(path, missing="", unreadable="")


def part_name(prop: str) -> str:
    """How a goal file names ``prop`` in its proof part: as written, or as its theorem where that is a refused word."""
    refused = prop in REFUSED_WORDS or prop.startswith(REFUSED_PREFIXES)
    return f"t_{prop}" if refused else prop


@attrs.frozen(kw_only=True)
class ProofFile:
    """A proof file accepted for use: its lemmas and, per property, its tactics (and where each part starts)."""

    name: str
    lemmas: str
    #: 1-based line of the proof file where the lemmas start.
    lemmas_line: int
    proofs: Mapping[str, str]
    #: Property -> 1-based line of the proof file where its tactics start.
    proof_lines: Mapping[str, int]


@attrs.frozen(kw_only=True)
class Refused:
    """A proof file that is not used: why (a reason of UNKNOWN and a sentence), and which properties it names."""

    reason: str
    detail: str
    names: frozenset[str]
    #: True when the file could not be read far enough to know the names: every property is refused.
    whole: bool = False


def load(module: SpecModule) -> Union[None, ProofFile, Refused]:
    """The proof file beside ``module``'s spec file: None when there is none, else accepted or refused."""
    path = proof_path(module.spec)
    if not path.is_file():
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return Refused(reason=UNSUPPORTED_REASON, detail=f"{path.name} could not be read: {error}",
                       names=frozenset(), whole=True)
    return check(text, path.name, module)


def check(text: str, name: str, module: SpecModule) -> Union[ProofFile, Refused]:
    """Parse a proof file's ``text`` and check it against the module (words, names, hashes)."""
    lines = text.splitlines()
    hashes: dict[str, str] = {}
    parts: dict[str, list[str]] = {}
    starts: dict[str, int] = {}
    lemmas: list[str] = []
    lemmas_line = 1
    current: Optional[str] = None
    known = {p.name for p in module.properties}
    by_part = {part_name(p): p for p in known} | {f"t_{p}": p for p in known}
    for number, line in enumerate(lines, start=1):
        found = _HASH.match(line)
        if found and current is None and not lemmas:
            hashes[found.group("which")] = found.group("digest")
            lemmas_line = number + 1
            continue
        part = _PART.match(line)
        if part:
            prop = by_part.get(part.group("name"))
            if prop is None:
                return Refused(reason=UNSUPPORTED_REASON, whole=True, names=frozenset(),
                               detail=f"{name} line {number} has a proof part for {part.group('name')!r}, "
                                      f"which the spec file does not export; the file is not used")
            if prop in parts:
                return Refused(reason=UNSUPPORTED_REASON, names=frozenset(parts) | {prop},
                               detail=f"{name} line {number} proves {prop} a second time; the file is not used")
            parts[prop] = []
            starts[prop] = number + 1
            current = prop
            continue
        if current is None:
            lemmas.append(line)
        else:
            parts[current].append(line)
    names = frozenset(parts)
    words = refused_words(text)
    if words:
        return Refused(reason=UNSUPPORTED_REASON, names=names, whole=not names,
                       detail=f"{words[0].describe(name)}; the file is not used")
    moved = []
    for which, path in (("module", module.module), ("spec", module.spec)):
        if which in hashes and hashes[which] != sha256_of(path):
            moved.append(Path(path or "").name or which)
    if moved:
        return Refused(reason=GAVE_UP, names=names, whole=not names,
                       detail=f"{name} is stale: {' and '.join(moved)} changed since it was written (its SHA-256 "
                              "header no longer matches), so its proofs are not used")
    # Only trailing blank lines go: a line of the file keeps its distance from its part's start.
    proofs = {prop: "\n".join(body).rstrip() for prop, body in parts.items() if "\n".join(body).strip()}
    lemma_text = "\n".join(lemmas).rstrip() if "\n".join(lemmas).strip() else ""
    return ProofFile(name=name, lemmas=lemma_text, lemmas_line=lemmas_line, proofs=proofs,
                     proof_lines={p: starts[p] for p in proofs})
