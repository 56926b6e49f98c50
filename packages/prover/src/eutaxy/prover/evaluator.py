"""The evaluator bridge: a Node process that imports a spec file and evaluates its properties.

Python sends batches of assignments (one encoded argument list each) and gets
one :class:`Outcome` per assignment: the claim held, failed, was skipped by
``when``, threw, or returned something that is not a boolean (a malformed
property). The evaluator decodes a fresh copy of every assignment for every
call, so a function that mutates its input changes nothing Python holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Optional, Sequence

import attrs

from .node import SCRIPTS_DIR, JsonLinesProcess, NodeError, NodeToolchain, script_env
from .values import encode

#: Assignments per request line: large enough that the round trip is not the
#: cost, small enough that one answer line stays a few hundred kilobytes.
BATCH_SIZE = 256

TRUE, FALSE, SKIPPED, THREW, MALFORMED = "true", "false", "skipped", "threw", "malformed"


@attrs.frozen(kw_only=True)
class Outcome:
    KINDS: ClassVar[tuple[str, ...]] = (TRUE, FALSE, SKIPPED, THREW, MALFORMED)
    kind: str
    phase: Optional[str] = None  # "when" | "ensures" for threw and malformed
    name: str = ""
    message: str = ""

    @property
    def fails(self) -> bool:
        """A counterexample: the claim was false, or it threw (``when`` held, ``ensures`` did not answer)."""
        return self.kind == FALSE or (self.kind == THREW and self.phase == "ensures")

    @property
    def inside(self) -> bool:
        """The assignment was inside the claim and the claim was evaluated on it."""
        return self.kind in (TRUE, FALSE) or (self.kind == THREW and self.phase == "ensures")

    def to_data(self) -> dict:
        data: dict[str, Any] = {"kind": self.kind}
        if self.phase:
            data["phase"] = self.phase
        if self.kind == THREW:
            data["name"] = self.name
            data["message"] = self.message
        if self.kind == MALFORMED:
            data["got"] = self.message
        return data

    @classmethod
    def from_data(cls, d: dict) -> "Outcome":
        kind = d["kind"]
        assert kind in cls.KINDS, kind
        return cls(kind=kind, phase=d.get("phase"), name=d.get("name", ""),
                   message=d.get("message", d.get("got", "")))


class LoadError(Exception):
    """The spec file (or the module it imports) could not be imported."""


@attrs.define(eq=False)
class Evaluator:
    """One Node process for one spec file. Use as a context manager."""

    spec: Path
    toolchain: NodeToolchain
    properties: dict[str, str] = attrs.field(factory=dict, init=False)
    evaluations: int = attrs.field(default=0, init=False)
    _process: Optional[JsonLinesProcess] = attrs.field(default=None, init=False)

    def __enter__(self) -> "Evaluator":
        self._process = JsonLinesProcess(
            args=[str(self.toolchain.node), str(SCRIPTS_DIR / "evaluator.mjs")],
            env=script_env(self.toolchain), cwd=str(Path(self.spec).parent)).start()
        answer = self._process.request({"op": "load", "spec": str(Path(self.spec).resolve())})
        if not answer.get("ok"):
            self.close()
            raise LoadError(answer.get("error", "the spec file did not load"))
        self.properties = dict(answer["properties"])
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        if self._process is not None:
            self._process.close()
            self._process = None

    def evaluate(self, prop: str, assignments: Sequence[Sequence[Any]]) -> list[Outcome]:
        """Evaluate ``prop`` on each assignment (Python values), in order."""
        return self.evaluate_encoded(prop, [[encode(v) for v in a] for a in assignments])

    def evaluate_encoded(self, prop: str, assignments: Sequence[Sequence[Any]]) -> list[Outcome]:
        assert self._process is not None, "use the evaluator as a context manager"
        out: list[Outcome] = []
        for start in range(0, len(assignments), BATCH_SIZE):
            batch = list(assignments[start:start + BATCH_SIZE])
            answer = self._process.request({"op": "eval", "property": prop, "assignments": batch})
            if not answer.get("ok"):
                raise NodeError(answer.get("error", "evaluation failed"))
            results = answer["results"]
            assert len(results) == len(batch), (len(results), len(batch))
            out.extend(Outcome.from_data(r) for r in results)
        self.evaluations += len(assignments)
        return out

    def regex_matches(self, pattern: str, flags: str, strings: Sequence[str]) -> list[bool]:
        """Which strings the real RegExp accepts (it has the last word on every walked draw)."""
        assert self._process is not None, "use the evaluator as a context manager"
        answer = self._process.request({"op": "regex", "pattern": pattern, "flags": flags, "strings": list(strings)})
        if not answer.get("ok"):
            raise NodeError(answer.get("error", "regex failed"))
        return [bool(r) for r in answer["results"]]
