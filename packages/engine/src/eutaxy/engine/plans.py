"""Plan builders and the small facts every explorer shares about scenarios and runs.

A run's streams, the restriction of a scenario to some of its events, the schedule a
run took and the plans for each of the three policies live here, so the seeded
explorer, the enumerator, replay and the shrinker build plans one way.
"""

from __future__ import annotations

import copy
from typing import Any, Iterable, Mapping, Sequence

from eutaxy.core.protocol import FirstPolicy, ReplayPolicy, RunPlan, RunResult, SeededPolicy
from eutaxy.core.prng import seed_words
from eutaxy.core.schedule import BatchAt, FaultAt, Schedule

__all__ = [
    "EVENT_ID_PREFIXES",
    "default_event_id",
    "event_ids",
    "events_of",
    "faults_injected",
    "first_plan",
    "replay_plan",
    "restrict_events",
    "run_streams",
    "schedule_of",
    "seeded_plan",
    "short_batches_withheld",
]


#: The id prefix of the events a drive numbers itself, by drive kind: ``msg-1``, ``msg-2``, …
#: for messages, ``req-1``, … for http requests. A drive kind not listed numbers as messages.
EVENT_ID_PREFIXES = {"queue": "msg", "sqs": "msg", "http": "req", "websocket": "ws", "cron": "tick", "rpc": "call"}


def default_event_id(drive_kind: Any, position: int) -> str:
    """The id of the drive's event at ``position`` (from 1) when the scenario gives none."""
    assert position >= 1, position
    return f"{EVENT_ID_PREFIXES.get(drive_kind, 'msg')}-{position}"


def run_streams(seed: str, run_index: int = 0) -> dict[str, tuple[int, int, int, int]]:
    """The seeded streams of run ``run_index`` of a check with ``seed``.

    The virtual globals are the seed's ``globals`` stream in every run, so a replay
    with the same seed draws the same randomness and needs nothing beyond the seed.
    Turn picks vary from run to run (run 0 takes the seed's ``turns`` stream, run ``i``
    the derived ``turns/i``), so a path that depends on the order of turns is measured
    more than once; a violating run's picks are recorded in its schedule, so replay does
    not depend on which stream chose them.
    """
    assert run_index >= 0, run_index
    turns = "turns" if run_index == 0 else f"turns/{run_index}"
    return {"globals": seed_words(seed, "globals"), "turns": seed_words(seed, turns)}


def events_of(scenario: Mapping[str, Any]) -> list[dict]:
    """The drive's events (every drive has them)."""
    return list((scenario.get("drive") or {}).get("events") or [])


def event_ids(scenario: Mapping[str, Any]) -> list[str]:
    """Each event's id: its own, else the drive's default (``default_event_id``)."""
    kind = (scenario.get("drive") or {}).get("kind")
    return [event.get("id") or default_event_id(kind, position) for position, event in enumerate(events_of(scenario), 1)]


def restrict_events(scenario: Mapping[str, Any], kept: Iterable[str]) -> dict:
    """The scenario with only the events ``kept`` (in the drive's order), each naming its id.

    Ids are written out so that an event keeps its id (and its invocations theirs) when
    the events before it are removed; a schedule's faults stay valid that way.
    """
    kept_set = set(kept)
    restricted = copy.deepcopy(dict(scenario))
    drive = restricted.get("drive")
    if drive is None:
        return restricted
    events = []
    for event_id, event in zip(event_ids(scenario), events_of(scenario)):
        if event_id in kept_set:
            events.append({**event, "id": event_id})
    drive["events"] = events
    return restricted


def seeded_plan(
    scenario: Mapping[str, Any],
    seed: str,
    run_index: int,
    faults: Mapping[int, int],
    max_faults: int,
    *,
    max_short_batches: int,
) -> RunPlan:
    return RunPlan(
        scenario=scenario,
        seed=seed,
        streams=run_streams(seed, run_index),
        prefix=(),
        policy=SeededPolicy(faults=dict(faults)),
        max_faults=max_faults,
        max_short_batches=max_short_batches,
    )


def first_plan(
    scenario: Mapping[str, Any], seed: str, prefix: Sequence[int], max_faults: int, *, max_short_batches: int
) -> RunPlan:
    return RunPlan(
        scenario=scenario,
        seed=seed,
        streams=run_streams(seed),
        prefix=tuple(prefix),
        policy=FirstPolicy(),
        max_faults=max_faults,
        max_short_batches=max_short_batches,
    )


def replay_plan(
    scenario: Mapping[str, Any], seed: str, schedule: Schedule, max_faults: int, *, max_short_batches: int
) -> RunPlan:
    """A plan that follows ``schedule``; neither the fault bound nor the short-batch bound hides one of its choices."""
    return RunPlan(
        scenario=scenario,
        seed=seed,
        streams=run_streams(seed),
        prefix=(),
        policy=ReplayPolicy(faults=tuple(schedule.faults), turns=tuple(schedule.turns), batches=tuple(schedule.batches)),
        max_faults=max(max_faults, len(schedule.faults)),
        max_short_batches=max(max_short_batches, len(schedule.batches)),
    )


def schedule_of(result: RunResult) -> Schedule:
    """The schedule a run took: its injected faults by point, every turn pick in order, and
    its short batches by the invocation each delivery started."""
    faults = []
    turns = []
    batches = []
    for decision in result.decisions:
        if decision.kind == "fault":
            if decision.chosen != 0:
                faults.append(
                    FaultAt(invocation=decision.invocation, ordinal=decision.ordinal, fault=decision.choice)
                )
        elif decision.kind == "batch":
            if decision.chosen != 0:
                assert decision.invocation is not None, decision
                batches.append(BatchAt(invocation=decision.invocation, size=int(decision.choice)))
        else:
            turns.append(decision.chosen)
    return Schedule(faults=tuple(faults), turns=tuple(turns), batches=tuple(batches))


def short_batches_withheld(result: RunResult) -> bool:
    """Whether a delivery of the run took several messages with no batch decision offered.

    Every delivery where the platform takes two or more messages makes a batch decision
    until the run's ``maxShortBatches`` deliveries took a short batch, so such a delivery
    means the bound stopped the run from exploring a short batch there.
    """
    decided = {d.invocation for d in result.decisions if d.kind == "batch"}
    return any(len(one.messages) >= 2 and one.invocation not in decided for one in result.invocations)


def faults_injected(result: RunResult) -> int:
    return sum(1 for d in result.decisions if d.kind == "fault" and d.chosen != 0)


def event_of_invocation(invocation: str) -> str:
    """The input event an invocation descends from: ``msg-1#2`` belongs to event ``msg-1``.

    An event a run makes itself (a message the Worker produced onto a queue it consumes)
    carries the id of the invocation that made it (``req-1#1/sent-1``, delivered as
    ``req-1#1/sent-1#1``), and input event ids hold no ``#``, so the input event is the text
    before the first ``#``: removing ``req-1`` removes what it produced, faults included.
    An invocation of the platform's own (``DO:LEDGER/acct/after``, ``.../after#2``) is its own
    event, which no restriction removes.
    """
    return invocation.split("#", 1)[0]
