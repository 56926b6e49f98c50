"""The run protocol: one run is one request (a ``RunPlan``) and one answer (a ``RunResult``).

The engine decides and the platform runtime follows: a plan says how every
decision of the run is to be taken (a forced prefix of choice indices, then a
default policy), and the result says what happened (the effect log, every
decision with its options and the index taken, the count of eligible points and
how the run ended). Nothing here knows a platform; ``docs/protocol.md`` is the
full text and ``docs/protocol.schema.json`` the schema both sides validate
against. The JSON field names are the protocol's (camelCase); the Python fields
are their snake_case.
"""

from __future__ import annotations

from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

import attrs

from eutaxy.core.console_lines import ConsoleLine, console_lines
from eutaxy.core.cuts import Cut, cuts_of
from eutaxy.core.invocation_outcomes import InvocationOutcome
from eutaxy.core.schedule import BatchAt, FaultAt

#: Bumped whenever a plan or a result changes shape or meaning; both sides refuse
#: any other version rather than guess.
PROTOCOL_VERSION = 1

#: The names of the seeded streams a plan carries (four xoshiro128** state words each).
STREAM_NAMES = ("globals", "turns")

DECISION_KINDS = ("fault", "turn", "batch")
END_KINDS = ("completed", "unsupported")


class ProtocolError(Exception):
    """A plan or result that does not follow the protocol: a bug on one side, never the user's."""


def _check_version(data: Mapping[str, Any], what: str) -> None:
    version = data.get("protocol")
    if version != PROTOCOL_VERSION:
        raise ProtocolError(f"{what}: protocol version {version!r}, expected {PROTOCOL_VERSION}")


def _words(value: Sequence[int], name: str) -> tuple[int, int, int, int]:
    words = tuple(int(w) for w in value)
    if len(words) != 4 or any(not 0 <= w < 2**32 for w in words):
        raise ProtocolError(f"stream {name!r}: expected four 32-bit words, got {list(value)!r}")
    return words  # four, checked above: mypy narrows the tuple by len()


# ---------------------------------------------------------------------------
# Policies: how decisions past the forced prefix are taken.


@attrs.frozen(kw_only=True)
class SeededPolicy:
    """Faults placed by the engine's plan stream, turns from the run's turn stream.

    ``faults`` maps an eligible-point ordinal (0-based count of eligible points
    reached in this run) to a 32-bit kind draw; the runtime injects
    ``allowed[draw % len(allowed)]`` there, so the kind is always one the point
    allows, whatever the point turns out to be.
    """

    faults: Mapping[int, int] = attrs.field(factory=dict)
    kind = "seeded"

    def to_data(self) -> dict:
        return {"kind": "seeded", "faults": {str(k): int(v) for k, v in sorted(self.faults.items())}}


@attrs.frozen(kw_only=True)
class ReplayPolicy:
    """A recorded schedule: faults keyed by invocation and ordinal, turn picks in order, short
    batches keyed by the invocation their delivery starts."""

    faults: tuple[FaultAt, ...] = ()
    turns: tuple[int, ...] = ()
    batches: tuple[BatchAt, ...] = ()
    kind = "replay"

    def to_data(self) -> dict:
        return {
            "kind": "replay",
            "faults": [
                {"invocation": f.invocation, "ordinal": f.ordinal, "fault": f.fault}
                for f in self.faults
            ],
            "turns": list(self.turns),
            "batches": [b.to_data() for b in self.batches],
        }


@attrs.frozen(kw_only=True)
class FirstPolicy:
    """Always option 0: the exhaustive enumerator's default past its forced prefix."""

    kind = "first"

    def to_data(self) -> dict:
        return {"kind": "first"}


Policy = SeededPolicy | ReplayPolicy | FirstPolicy


def policy_from_data(data: Mapping[str, Any]) -> Policy:
    kind = data.get("kind")
    if kind == "seeded":
        faults = data.get("faults", {})
        return SeededPolicy(faults={int(k): int(v) for k, v in faults.items()})
    if kind == "replay":
        return ReplayPolicy(
            faults=tuple(
                FaultAt(invocation=f["invocation"], ordinal=int(f["ordinal"]), fault=f["fault"])
                for f in data.get("faults", [])
            ),
            turns=tuple(int(t) for t in data.get("turns", [])),
            batches=tuple(
                BatchAt(invocation=b["invocation"], size=int(b["size"])) for b in data.get("batches", [])
            ),
        )
    if kind == "first":
        return FirstPolicy()
    raise ProtocolError(f"policy: unknown kind {kind!r}, expected seeded, replay or first")


# ---------------------------------------------------------------------------
# The plan.


@attrs.frozen(kw_only=True)
class RunPlan:
    """Everything a runtime needs to perform one run and take every decision in it."""

    #: The scenario as plain data, its drive's events possibly restricted by the shrinker.
    scenario: Mapping[str, Any]
    seed: str
    #: ``{"globals": words, "turns": words}``: the run's seeded streams' state words.
    streams: Mapping[str, tuple[int, int, int, int]]
    #: Decision ``i`` takes ``prefix[i]`` while the prefix lasts (option 0 when out of range).
    prefix: tuple[int, ...] = ()
    policy: Policy = attrs.field(factory=FirstPolicy)
    #: No fault decision is offered once this many faults were injected in the run.
    max_faults: int = 0
    #: No batch decision is offered once this many deliveries took a short batch in the run
    #: (0: every delivery takes what the platform takes).
    max_short_batches: int = 0

    def __attrs_post_init__(self) -> None:
        assert all(i >= 0 for i in self.prefix), self.prefix
        assert self.max_faults >= 0, self.max_faults
        assert self.max_short_batches >= 0, self.max_short_batches
        for name in STREAM_NAMES:
            assert name in self.streams, name

    def to_data(self) -> dict:
        return {
            "protocol": PROTOCOL_VERSION,
            "scenario": self.scenario,
            "seed": self.seed,
            "streams": {name: list(self.streams[name]) for name in sorted(self.streams)},
            "prefix": list(self.prefix),
            "policy": self.policy.to_data(),
            "maxFaults": self.max_faults,
            "maxShortBatches": self.max_short_batches,
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> RunPlan:
        _check_version(data, "plan")
        return cls(
            scenario=data["scenario"],
            seed=data["seed"],
            streams={name: _words(words, name) for name, words in data["streams"].items()},
            prefix=tuple(int(i) for i in data.get("prefix", [])),
            policy=policy_from_data(data["policy"]),
            max_faults=int(data["maxFaults"]),
            max_short_batches=int(data["maxShortBatches"]),
        )


# ---------------------------------------------------------------------------
# The result.


@attrs.frozen(kw_only=True)
class Decision:
    """One decision the run took: its options, in the runtime's order, and the index chosen.

    A ``fault`` decision is made at an eligible point; its options are ``"none"``
    then the point's allowed kinds in ladder order, and it names the point
    (invocation, ordinal, target). A ``batch`` decision is made when a queue delivery
    starts with two or more messages waiting, while fewer than ``maxShortBatches``
    deliveries of the run took a short batch: its options are message counts, the
    platform's batch first (every waiting message up to the batch size, ``n``) and then
    ``1 .. n-1``; it names the invocation the delivery starts and the queue (``target``).
    A ``turn`` decision picks the next move of a
    concurrent run; its options are plain dicts keyed by ``kind`` (``effect``,
    ``start``, ``timer``, ``time``) and ``more`` says whether the chosen turn did
    more than its effect.
    """

    kind: str
    options: tuple[Any, ...]
    chosen: int
    invocation: str | None = None
    ordinal: int | None = None
    target: str | None = None
    more: bool = False

    def __attrs_post_init__(self) -> None:
        assert self.kind in DECISION_KINDS, self.kind
        assert 0 <= self.chosen < len(self.options), (self.chosen, self.options)
        if self.kind == "fault":
            assert self.options[0] == "none", self.options
            assert self.invocation is not None and self.ordinal is not None, self
        if self.kind == "batch":
            assert self.invocation is not None, self
            assert list(self.options[1:]) == list(range(1, len(self.options))), self.options
            assert self.options[0] == len(self.options), self.options

    @property
    def choice(self) -> Any:
        """The option taken."""
        return self.options[self.chosen]

    def to_data(self) -> dict:
        if self.kind == "fault":
            return {
                "kind": "fault",
                "invocation": self.invocation,
                "ordinal": self.ordinal,
                "target": self.target,
                "options": list(self.options),
                "chosen": self.chosen,
            }
        if self.kind == "batch":
            return {
                "kind": "batch",
                "invocation": self.invocation,
                "target": self.target,
                "options": list(self.options),
                "chosen": self.chosen,
            }
        return {"kind": "turn", "options": list(self.options), "chosen": self.chosen, "more": self.more}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Decision:
        kind = data.get("kind")
        if kind not in DECISION_KINDS:
            raise ProtocolError(f"decision: unknown kind {kind!r}, expected fault, turn or batch")
        options = tuple(data["options"])
        chosen = int(data["chosen"])
        if not 0 <= chosen < len(options):
            raise ProtocolError(f"decision: chosen {chosen} outside its {len(options)} options")
        if kind == "fault":
            if not options or options[0] != "none":
                raise ProtocolError(f"fault decision: options must start with 'none', got {list(options)!r}")
            return cls(
                kind="fault",
                options=options,
                chosen=chosen,
                invocation=data["invocation"],
                ordinal=int(data["ordinal"]),
                target=data.get("target"),
            )
        if kind == "batch":
            if len(options) < 2 or list(options) != [len(options), *range(1, len(options))]:
                raise ProtocolError(f"batch decision: options must be [n, 1, ..., n-1] with n >= 2, got {list(options)!r}")
            return cls(kind="batch", options=options, chosen=chosen, invocation=data["invocation"], target=data.get("target"))
        return cls(kind="turn", options=options, chosen=chosen, more=bool(data.get("more", False)))


@attrs.frozen(kw_only=True)
class EndState:
    """How a run ended: ``completed``, or ``unsupported`` with a cause and a sentence."""

    kind: str = "completed"
    cause: str | None = None
    detail: str | None = None

    def __attrs_post_init__(self) -> None:
        assert self.kind in END_KINDS, self.kind
        assert (self.kind == "unsupported") == (self.cause is not None), self

    def to_data(self) -> dict:
        if self.kind == "completed":
            return {"kind": "completed"}
        return {"kind": "unsupported", "cause": self.cause, "detail": self.detail or ""}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> EndState:
        kind = data.get("kind")
        if kind == "completed":
            return cls()
        if kind == "unsupported":
            return cls(kind="unsupported", cause=data["cause"], detail=data.get("detail", ""))
        raise ProtocolError(f"end: unknown kind {kind!r}, expected completed or unsupported")


def _invocation_outcomes(values: Sequence[InvocationOutcome]) -> tuple[InvocationOutcome, ...]:
    return tuple(values)


@attrs.frozen(kw_only=True)
class RunResult:
    """What one run did: its effect log (plain effect data), its decisions and how it ended."""

    effects: tuple[Mapping[str, Any], ...] = ()
    #: Eligible points reached: points with allowed faults, reached while under ``maxFaults``.
    eligible: int = 0
    decisions: tuple[Decision, ...] = ()
    end: EndState = attrs.field(factory=EndState)
    #: What the user's code logged, in order (``eutaxy.core.console_lines``); never effects.
    console: tuple[ConsoleLine, ...] = attrs.field(default=(), converter=console_lines)
    #: How each invocation the run delivered to a handler ended (``eutaxy.core.invocation_outcomes``).
    invocations: tuple[InvocationOutcome, ...] = attrs.field(default=(), converter=_invocation_outcomes)
    #: Where a bound stopped what the platform would have continued (``eutaxy.core.cuts``).
    cuts: tuple[Cut, ...] = attrs.field(default=(), converter=cuts_of)

    def __attrs_post_init__(self) -> None:
        assert self.eligible >= 0, self.eligible
        # Every fault decision is made at an eligible point, so there are never more of them.
        assert sum(1 for d in self.decisions if d.kind == "fault") <= self.eligible, self

    def to_data(self) -> dict:
        return {
            "protocol": PROTOCOL_VERSION,
            "effects": [dict(e) for e in self.effects],
            "eligible": self.eligible,
            "decisions": [d.to_data() for d in self.decisions],
            "end": self.end.to_data(),
            # Only a run whose code logged carries lines, so every other result reads as before.
            **({"console": [line.to_data() for line in self.console]} if self.console else {}),
            **({"invocations": [one.to_data() for one in self.invocations]} if self.invocations else {}),
            **({"cuts": [one.to_data() for one in self.cuts]} if self.cuts else {}),
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> RunResult:
        _check_version(data, "result")
        decisions = tuple(Decision.from_data(d) for d in data.get("decisions", []))
        eligible = int(data.get("eligible", 0))
        if sum(1 for d in decisions if d.kind == "fault") > eligible:
            raise ProtocolError(f"result: more fault decisions than its {eligible} eligible points")
        try:
            lines = console_lines(data.get("console") or [])
        except ValueError as error:
            raise ProtocolError(f"result: {error}") from None
        try:
            invocations = tuple(InvocationOutcome.from_data(one) for one in data.get("invocations") or [])
        except (KeyError, TypeError, ValueError) as error:
            raise ProtocolError(f"result: an invocations entry does not read: {error!r}") from None
        try:
            cuts = cuts_of(data.get("cuts") or [])
        except (KeyError, TypeError, ValueError, AssertionError) as error:
            raise ProtocolError(f"result: a cuts entry does not read: {error!r}") from None
        return cls(
            effects=tuple(data.get("effects", [])),
            eligible=eligible,
            decisions=decisions,
            end=EndState.from_data(data.get("end", {"kind": "completed"})),
            console=lines,
            invocations=invocations,
            cuts=cuts,
        )


# ---------------------------------------------------------------------------
# The platform interface.


@runtime_checkable
class Platform(Protocol):
    """A runtime that performs runs: the engine's only way to run user code.

    ``run`` resets the platform's state, performs the plan and answers; it never
    raises for what user code does (that is in the effect log or the end state).
    ``describe`` returns ``{"platform": name, "assumptions": [sentence, ...]}``:
    what the verdict must state it assumed; ``unusedBounds`` (optional) names the platform's
    bounds that cannot apply to this scenario (an alarm bound for a Worker with no Durable
    Object), which the verdict then does not state. ``close`` releases the runtime.
    """

    def run(self, plan: RunPlan) -> RunResult: ...

    def close(self) -> None: ...

    def describe(self) -> dict: ...
