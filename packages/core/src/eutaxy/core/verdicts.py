"""Verdicts: what a check may claim, and the provenance every claim carries.

Two kinds, kept apart in every report: simulation verdicts about a scenario (VIOLATED,
BOUNDED, UNSUPPORTED) and spec verdicts about a pure function (CHECKED, TESTED, PROVEN,
REFUTED, UNKNOWN, CONFLICT). BOUNDED is never "verified"; anything Eutaxy cannot control
is UNSUPPORTED with a cause, never a quiet pass.
"""

from __future__ import annotations

import importlib.resources
import json
from typing import Any, Iterable

import attrs

from eutaxy.core.errors import UserError

__all__ = [
    "BOUNDED",
    "CAUSES",
    "CHECKED",
    "CONFLICT",
    "CPU_BOUND",
    "GAVE_UP",
    "MODULE_STATE_LEAK",
    "NONDETERMINISTIC",
    "NOT_REPLAYABLE",
    "PROVEN",
    "REFUTED",
    "RUNGS",
    "SCHEMA_VERSION",
    "SIMULATION_KINDS",
    "SPEC_KINDS",
    "TESTED",
    "UNAVAILABLE",
    "UNKNOWN",
    "UNKNOWN_REASONS",
    "UNSUPPORTED",
    "UNSUPPORTED_CAUSES",
    "UNSUPPORTED_REASON",
    "VACUOUS_INVARIANT",
    "VIOLATED",
    "Cause",
    "Provenance",
    "SpecVerdict",
    "exit_code",
    "simulation_verdict",
]

#: The report schema version every verdict's JSON carries.
SCHEMA_VERSION = 1

# --- simulation verdicts -------------------------------------------------------------

#: A replayed, shrunk trace breaks an invariant.
VIOLATED = "violated"
#: No violation in any explored run within the stated bounds (never "verified").
BOUNDED = "bounded"
#: The run touched something Eutaxy cannot control, or did not replay.
UNSUPPORTED = "unsupported"
SIMULATION_KINDS = (VIOLATED, BOUNDED, UNSUPPORTED)

# The causes of UNSUPPORTED (``cause.kind``). vectors/causes.json is the one registry: every
# cause either side (Python platforms and engine, the JavaScript runtime) emits, what it
# means and who emits it; packages/core/tests/test_causes.py scans the sources against it.
# The names Python code uses directly are constants here, each checked against the registry.


def _load_causes() -> dict[str, dict[str, Any]]:
    text = (importlib.resources.files("eutaxy.core") / "vectors" / "causes.json").read_text(encoding="utf-8")
    entries = json.loads(text)["causes"]
    causes = {entry["name"]: entry for entry in entries}
    assert len(causes) == len(entries), "causes.json names a cause twice"
    return causes


#: Every UNSUPPORTED cause, by name: ``{"name", "meaning", "emitters"}`` (vectors/causes.json).
CAUSES: dict[str, dict[str, Any]] = _load_causes()
UNSUPPORTED_CAUSES = tuple(sorted(CAUSES))

#: Replaying the first runs in another order changed their logs.
MODULE_STATE_LEAK = "module_state_leak"
#: The same plan made different choices (or a violation did not replay).
NOT_REPLAYABLE = "not_replayable"
#: Handler code ran longer than the per-effect threshold without yielding (a loop that never ends).
CPU_BOUND = "cpu_bound"
#: An invariant selected no effect and read no row in any run, so it held trivially.
VACUOUS_INVARIANT = "vacuous_invariant"
#: A rerun of an explored schedule (``--audit``) recorded a different effect log.
NONDETERMINISTIC = "nondeterministic"
for _name in (MODULE_STATE_LEAK, NOT_REPLAYABLE, CPU_BOUND, VACUOUS_INVARIANT, NONDETERMINISTIC):
    assert _name in CAUSES, f"{_name} is not in vectors/causes.json"
del _name

_EXIT_CODES = {BOUNDED: 0, VIOLATED: 1, UNSUPPORTED: 2}


def exit_code(kind: str) -> int:
    """The CLI's exit status for a simulation verdict: 0 BOUNDED, 1 VIOLATED, 2 UNSUPPORTED."""
    return _EXIT_CODES[kind]


@attrs.frozen
class Cause:
    """Why a run is UNSUPPORTED: a cause kind and a sentence naming what was touched."""

    kind: str
    detail: str = ""

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "detail": self.detail}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "Cause":
        return cls(kind=data["kind"], detail=data.get("detail", ""))


def _strings(values: Iterable[Any]) -> tuple[str, ...]:
    return tuple(str(value) for value in values)


@attrs.frozen(kw_only=True)
class Provenance:
    """What a simulation verdict rests on; no wall-clock value, so equal seeds give equal JSON."""

    seed: str
    runs: int
    faults_injected: int
    bounds: dict = attrs.field(factory=dict)
    bounds_reached: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    schedule_points: int = 0
    replayed: int = 0
    not_replayed: int = 0
    assumptions: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    #: Each restart of a runtime that died during the check (what died, in which run); the
    #: interrupted run was performed again, so the verdict is the one it would have been.
    restarts: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    #: Distinct schedules (fault choices and turn picks) the exploration runs took.
    schedules: int = 0
    #: Every schedule within the bounds ran (no bound stopped exploration).
    completed: bool = False
    #: The shrinker's replays and whether its cap stopped it (VIOLATED only).
    shrink_replays: int | None = None
    shrink_capped: bool | None = None

    def to_data(self) -> dict[str, Any]:
        data = {
            "seed": self.seed,
            "runs": self.runs,
            "faultsInjected": self.faults_injected,
            "bounds": dict(self.bounds),
            "boundsReached": list(self.bounds_reached),
            "schedulePoints": self.schedule_points,
            "replayed": self.replayed,
            "notReplayed": self.not_replayed,
            "assumptions": list(self.assumptions),
            "schedules": self.schedules,
            "completed": self.completed,
        }
        if self.restarts:
            data["restarts"] = list(self.restarts)
        if self.shrink_replays is not None:
            data["shrinkReplays"] = self.shrink_replays
            data["shrinkCapped"] = bool(self.shrink_capped)
        return data

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "Provenance":
        return cls(
            seed=data["seed"],
            runs=data["runs"],
            faults_injected=data["faultsInjected"],
            bounds=dict(data.get("bounds") or {}),
            bounds_reached=data.get("boundsReached") or (),
            schedule_points=data.get("schedulePoints", 0),
            replayed=data.get("replayed", 0),
            not_replayed=data.get("notReplayed", 0),
            assumptions=data.get("assumptions") or (),
            restarts=data.get("restarts") or (),
            schedules=data.get("schedules", 0),
            completed=bool(data.get("completed", False)),
            shrink_replays=data.get("shrinkReplays"),
            shrink_capped=data.get("shrinkCapped"),
        )


def _data(value: Any) -> Any:
    return value.to_data() if hasattr(value, "to_data") else value


def simulation_verdict(
    kind: str,
    *,
    scenario: str,
    platform: str,
    provenance: Provenance | dict[str, Any],
    violation: Any = None,
    trace: Iterable[Any] | None = None,
    schedule: Any = None,
    kept_events: Iterable[str] | None = None,
    cause: Cause | dict[str, Any] | None = None,
    exhaustive: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The plain data of a simulation verdict, with the fields its kind requires.

    ``violation``, ``trace``, ``schedule`` and ``keptEvents`` appear exactly on VIOLATED (the
    trace is the replayed shrunk run), ``cause`` exactly on UNSUPPORTED, ``exhaustive``
    when an exhaustive exploration was asked.
    """
    if kind not in SIMULATION_KINDS:
        raise ValueError(f"unknown simulation verdict {kind!r}")
    violated_fields = (violation, trace, schedule, kept_events)
    if kind == VIOLATED:
        assert all(field is not None for field in violated_fields), "VIOLATED carries its replayed trace"
    else:
        assert all(field is None for field in violated_fields), f"{kind} carries no violation"
    assert (cause is not None) == (kind == UNSUPPORTED), "a cause exactly on UNSUPPORTED"
    verdict: dict[str, Any] = {
        "schemaVersion": SCHEMA_VERSION,
        "kind": kind,
        "scenario": scenario,
        "platform": platform,
        "provenance": _data(provenance),
    }
    if kind == VIOLATED:
        verdict["violation"] = _data(violation)
        verdict["trace"] = [_data(effect) for effect in trace]
        verdict["schedule"] = _data(schedule)
        verdict["keptEvents"] = list(kept_events)
    if cause is not None:
        verdict["cause"] = _data(cause)
    if exhaustive is not None:
        verdict["exhaustive"] = dict(exhaustive)
    return verdict


# --- spec verdicts -------------------------------------------------------------------

#: Held on every input the simulator actually passed to the function.
CHECKED = "checked"
#: Held on generated inputs.
TESTED = "tested"
#: Proved for all inputs by a named engine.
PROVEN = "proven"
#: A counterexample was found at some rung.
REFUTED = "refuted"
#: No rung could decide; carries reasons.
UNKNOWN = "unknown"
#: Two engines disagree (or an engine proves against the simulator's counterexample).
CONFLICT = "conflict"
SPEC_KINDS = (CHECKED, TESTED, PROVEN, REFUTED, UNKNOWN, CONFLICT)

#: The ladder's rungs, in the order they run.
RUNGS = (CHECKED, TESTED, PROVEN)

#: A rung ran but could not decide (no input inside the claim, a solver limit).
GAVE_UP = "gave_up"
#: The rung does not take the function or property (total at a sampling rung, a malformed property).
UNSUPPORTED_REASON = "unsupported"
#: The engine is not installed or could not run.
UNAVAILABLE = "unavailable"
UNKNOWN_REASONS = (GAVE_UP, UNSUPPORTED_REASON, UNAVAILABLE)


@attrs.frozen(kw_only=True)
class SpecVerdict:
    """A spec verdict about one property of one pure function.

    ``rung`` is where the verdict was reached (for REFUTED, where the counterexample was
    found); ``counts`` the distinct inputs each sampling rung held on (``{"checked": 3,
    "tested": 100}``); ``engine`` names the prover (``{"name", "version"}``) for PROVEN and
    engine refutations; ``reasons`` the UNKNOWN reasons (one per rung that could not decide).
    """

    kind: str
    property: str
    rung: str | None = None
    counts: dict = attrs.field(factory=dict)
    engine: dict | None = None
    assumptions: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    reasons: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    counterexample: Any = None
    seed: str | None = None
    detail: str = ""
    #: For UNKNOWN (unsupported) from an engine: the construct it refused and where
    #: (``{construct, line, file: "module" | "spec", function, text}``).
    unsupported: dict | None = None

    def __attrs_post_init__(self) -> None:
        if self.kind not in SPEC_KINDS:
            raise UserError(f"unknown spec verdict {self.kind!r}; kinds are {', '.join(SPEC_KINDS)}")
        if self.rung is not None and self.rung not in RUNGS:
            raise UserError(f"unknown rung {self.rung!r}; rungs are {', '.join(RUNGS)}")
        for reason in self.reasons:
            if reason not in UNKNOWN_REASONS:
                raise UserError(f"unknown reason {reason!r}; reasons are {', '.join(UNKNOWN_REASONS)}")
        assert self.kind != UNKNOWN or self.reasons, "an UNKNOWN verdict names why"
        assert self.kind != PROVEN or self.engine, "a PROVEN verdict names its engine"

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind,
            "property": self.property,
            "rung": self.rung,
            "counts": dict(self.counts),
            "assumptions": list(self.assumptions),
        }
        if self.engine is not None:
            data["engine"] = dict(self.engine)
        if self.reasons:
            data["reasons"] = list(self.reasons)
        if self.counterexample is not None:
            data["counterexample"] = self.counterexample
        if self.seed is not None:
            data["seed"] = self.seed
        if self.detail:
            data["detail"] = self.detail
        if self.unsupported is not None:
            data["unsupported"] = dict(self.unsupported)
        return data

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "SpecVerdict":
        return cls(
            kind=data["kind"],
            property=data["property"],
            rung=data.get("rung"),
            counts=dict(data.get("counts") or {}),
            engine=data.get("engine"),
            assumptions=data.get("assumptions") or (),
            reasons=data.get("reasons") or (),
            counterexample=data.get("counterexample"),
            seed=data.get("seed"),
            detail=data.get("detail", ""),
            unsupported=data.get("unsupported"),
        )
