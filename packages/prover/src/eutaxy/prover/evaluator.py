"""The evaluator bridge: a Node process that imports a spec file and evaluates its properties.

Python sends batches of assignments (one encoded argument list each) and gets
one :class:`Outcome` per assignment: the claim held, failed, was skipped by
``when``, threw, or returned something that is not a boolean (a malformed
property). The evaluator decodes a fresh copy of every assignment for every
call, so a function that mutates its input changes nothing Python holds.

Every evaluation is bounded by ``limit_ms`` of real time. A runaway call comes
back as a ``timeout`` outcome, a call that ended the evaluator (``process.exit``,
out of memory) as ``died``; either ends the answer (the assignments after it
are not evaluated, so the list is shorter than the batch) and the next request
finds a fresh evaluator with the spec loaded. A Node process that stops
answering altogether is killed and started again; the request that found it so
raises :class:`NodeError`.
"""

from __future__ import annotations

import base64
import struct
from pathlib import Path
from typing import Any, ClassVar, Optional, Sequence

import attrs

from eutaxy.spec.values import encode

from .node import SCRIPTS_DIR, JsonLinesProcess, NodeError, NodeToolchain, script_env

#: Assignments per request line: large enough that the round trip is not the
#: cost, small enough that one answer line stays a few hundred kilobytes.
BATCH_SIZE = 2048

TRUE, FALSE, SKIPPED, THREW, MALFORMED = "true", "false", "skipped", "threw", "malformed"
#: The evaluation ran past its limit, or the code under test ended the evaluator: the batch stops there.
TIMEOUT, DIED = "timeout", "died"

#: The most xoshiro128** words one ``words`` request asks for (the evaluator's own limit).
WORDS_MAX = 1 << 20

#: Real time one evaluation may take unless the property says otherwise (``timeoutMs``).
LIMIT_MS_DEFAULT = 5000
#: Real time the spec file's import may take.
LOAD_LIMIT_MS = 30000
#: Beyond the evaluations' own limits, how long Python waits for an answer before it
#: calls the Node process stuck, kills it and starts another.
STUCK_GRACE_S = 60.0


@attrs.frozen(kw_only=True)
class Outcome:
    KINDS: ClassVar[tuple[str, ...]] = (TRUE, FALSE, SKIPPED, THREW, MALFORMED, TIMEOUT, DIED)
    kind: str
    phase: Optional[str] = None  # "when" | "ensures" for threw and malformed
    name: str = ""
    message: str = ""

    @property
    def fails(self) -> bool:
        """A counterexample: the claim was false, or it threw (``when`` held, ``ensures`` did not answer)."""
        return self.kind == FALSE or (self.kind == THREW and self.phase == "ensures")

    @property
    def stopped(self) -> bool:
        """No answer: the evaluation ran past its limit or ended the evaluator."""
        return self.kind in (TIMEOUT, DIED)

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
        if self.kind == TIMEOUT:
            data["ms"] = int(self.message)
        if self.kind == DIED:
            data["message"] = self.message
        return data

    @classmethod
    def from_data(cls, d: dict) -> "Outcome":
        kind = d["kind"]
        if len(d) == 1 and kind in _PLAIN_OUTCOMES:
            return _PLAIN_OUTCOMES[kind]  # most answers: one shared value per kind (outcomes are frozen)
        assert kind in cls.KINDS, kind
        message = str(d["ms"]) if kind == TIMEOUT else d.get("message", d.get("got", ""))
        return cls(kind=kind, phase=d.get("phase"), name=d.get("name", ""), message=message)

    def describe(self) -> str:
        """Why an evaluation gave no answer, in words (for ``timeout`` and ``died``)."""
        if self.kind == TIMEOUT:
            return f"{self.phase or 'the claim'} ran past the {self.message} ms limit on one evaluation"
        if self.kind == DIED:
            return f"{self.phase or 'the claim'} ended the evaluator: {self.message}"
        return self.kind


#: The outcomes that carry nothing but their kind, built once.
_PLAIN_OUTCOMES = {kind: Outcome(kind=kind) for kind in (TRUE, FALSE, SKIPPED)}


def limit_ms(prop: Any) -> int:
    """The real time one evaluation of a property may take: its ``timeoutMs``, else the default."""
    given = getattr(prop, "timeout_ms", None)
    return int(given) if given else LIMIT_MS_DEFAULT


class LoadError(Exception):
    """The spec file (or the module it imports) could not be imported."""


@attrs.define(eq=False)
class Evaluator:
    """One Node process for one spec file. Use as a context manager."""

    spec: Path
    toolchain: NodeToolchain
    properties: dict[str, str] = attrs.field(factory=dict, init=False)
    #: Per property with ``inputs``, one generator (plain data) or ``None`` per parameter.
    generators: dict[str, list] = attrs.field(factory=dict, init=False)
    #: The user's files the bundle holds (the module and everything it imports), absolute.
    imports: list[str] = attrs.field(factory=list, init=False)
    evaluations: int = attrs.field(default=0, init=False)
    #: Node processes started after the first (one stopped answering).
    restarts: int = attrs.field(default=0, init=False)
    _process: Optional[JsonLinesProcess] = attrs.field(default=None, init=False)

    def __enter__(self) -> "Evaluator":
        self._start()
        return self

    def _start(self) -> None:
        self._process = JsonLinesProcess(
            args=[str(self.toolchain.node), str(SCRIPTS_DIR / "evaluator.mjs")],
            env=script_env(self.toolchain), cwd=str(Path(self.spec).parent)).start()
        try:
            answer = self._process.request({"op": "load", "spec": str(Path(self.spec).resolve()),
                                            "limitMs": LOAD_LIMIT_MS},
                                           timeout_s=LOAD_LIMIT_MS / 1000 + STUCK_GRACE_S)
        except NodeError:
            self.close()
            raise
        if not answer.get("ok"):
            self.close()
            raise LoadError(answer.get("error", "the spec file did not load"))
        self.properties = dict(answer["properties"])
        self.generators = dict(answer.get("generators", {}))
        self.imports = list(answer.get("imports", []))

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        if self._process is not None:
            self._process.close()
            self._process = None

    def _request(self, message: dict, budget_s: float) -> dict:
        """One request; a process that died or stopped answering is started again for the next one."""
        if self._process is None or not self._process.running:
            self.close()
            self.restarts += 1
            self._start()
        assert self._process is not None
        try:
            return self._process.request(message, timeout_s=budget_s + STUCK_GRACE_S)
        except NodeError:
            self.close()
            raise

    def evaluate(self, prop: str, assignments: Sequence[Sequence[Any]], *,
                 limit_ms: int = LIMIT_MS_DEFAULT) -> list[Outcome]:
        """Evaluate ``prop`` on each assignment (Python values), in order; see :meth:`evaluate_encoded`."""
        return self.evaluate_encoded(prop, [[encode(v) for v in a] for a in assignments], limit_ms=limit_ms)

    def evaluate_encoded(self, prop: str, assignments: Sequence[Sequence[Any]], *,
                         limit_ms: int = LIMIT_MS_DEFAULT) -> list[Outcome]:
        """One outcome per assignment, in order, up to the first that gave no answer.

        The list is shorter than ``assignments`` exactly when its last outcome
        is ``timeout`` or ``died``: nothing after that assignment was evaluated.
        """
        out: list[Outcome] = []
        for start in range(0, len(assignments), BATCH_SIZE):
            batch = list(assignments[start:start + BATCH_SIZE])
            answer = self._request({"op": "eval", "property": prop, "assignments": batch, "limitMs": limit_ms},
                                   limit_ms / 1000 * len(batch))
            if not answer.get("ok"):
                raise NodeError(answer.get("error", "evaluation failed"))
            results = [Outcome.from_data(r) for r in answer["results"]]
            assert len(results) == len(batch) or (results and results[-1].stopped), (len(results), len(batch))
            out.extend(results)
            self.evaluations += len(results)
            if len(results) < len(batch):
                break
        return out

    def words(self, state: tuple[int, int, int, int], count: int) -> tuple[tuple[int, ...], tuple[int, int, int, int]]:
        """The next ``count`` words of the xoshiro128** ``state``, generated by Node, and the state after them.

        They are the words ``eutaxy.core.prng.Xoshiro128(state).next_u32()`` gives, in order,
        which Node computes about a hundred times faster than Python.
        """
        assert 0 < count <= WORDS_MAX, count
        answer = self._request({"op": "words", "state": list(state), "count": count}, 1.0)
        if not answer.get("ok"):
            raise NodeError(answer.get("error", "words failed"))
        data = base64.b64decode(answer["words"])
        assert len(data) == 4 * count, (len(data), count)
        after = tuple(answer["state"])
        assert len(after) == 4 and all(0 <= w <= 0xFFFFFFFF for w in after), after
        return struct.unpack(f"<{count}I", data), after  # type: ignore[return-value]

    def regex_matches(self, pattern: str, flags: str, strings: Sequence[str], *,
                      limit_ms: int = LIMIT_MS_DEFAULT) -> list[bool]:
        """Which strings the real RegExp accepts (it has the last word on every walked draw).

        A match that runs past the limit counts as no match, and so do the strings after it.
        """
        answer = self._request({"op": "regex", "pattern": pattern, "flags": flags, "strings": list(strings),
                                "limitMs": limit_ms}, limit_ms / 1000 * max(1, len(strings)))
        if not answer.get("ok"):
            raise NodeError(answer.get("error", "regex failed"))
        results = [bool(r) for r in answer["results"]]
        return results + [False] * (len(strings) - len(results))
