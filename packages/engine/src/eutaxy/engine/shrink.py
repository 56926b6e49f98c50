"""The shrinker: the smallest schedule and event set that still break the same invariant.

It starts from a replayed violation and runs named passes to a fixed point. Chunks go
first, as delta debugging does: remove half the kept events, then quarters and so on
down to pairs (each with the faults of its invocations), then chunks of faults the same
way; then single faults, then single events. A violation among a thousand events thus
shrinks in a few dozen replays rather than a thousand. A candidate is kept only when its
replay breaks the same invariant for the same keys; the invariants are checked against
the remaining events, so expectations derived from the input (per-message at-least-once)
are re-derived and cannot break merely because they went stale. A kept candidate's
schedule is the one its replay took (the faults injected, every turn pick); a last
replay shows it gives the final trace again.

A shrunk trace must be a true counterexample, so two guards keep a violation from
coming from dropping events alone:

- an event that an invariant's fixed expectation names (``at_least_once``'s expected
  keys, matched against the event's id and the values in its body) is never removed;
- a candidate with fewer events is accepted only if its kept events, replayed with no
  faults and turns in arrival order (option 0), break no invariant that the whole
  scenario's such run does not break. A bug that shows without faults still shrinks; a
  "lost" key whose event was removed does not.

Candidates are accepted only when strictly smaller under ``schedule_sort_key`` (fewer
events, then fewer choices), which bounds the passes; ``MAX_SHRINK_RUNS`` bounds the
replays (the guard's fault-free runs included). Wall time never stops shrinking, so the
verdict stays deterministic.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping, Sequence

import attrs

from eutaxy.core.canonical import to_json
from eutaxy.core.schedule import FaultAt, Schedule, schedule_sort_key
from eutaxy.core.violations import Violation

from eutaxy.engine.plans import event_ids, event_of_invocation, events_of, first_plan, restrict_events
from eutaxy.engine.replay import replay
from eutaxy.engine.session import RunRecord, Session, same_violation, violation_key

__all__ = ["MAX_SHRINK_RUNS", "SHRINK_PASSES", "Shrunk", "fault_free_run", "protected_events", "shrink"]

#: Replays the shrinker may spend: enough for a few dozen faults and events removed one
#: at a time, or a thousand events halved down to one, and small next to an exploration
#: budget.
MAX_SHRINK_RUNS = 500


@attrs.frozen(kw_only=True)
class Shrunk:
    record: RunRecord
    violation: Violation
    schedule: Schedule
    kept_events: tuple[str, ...]
    #: Replays spent, the fault-free guard runs included.
    replays: int
    #: Whether ``MAX_SHRINK_RUNS`` stopped the shrinker before a fixed point.
    capped: bool
    #: The kept events' fault-free arrival-order run, when the guard already ran it.
    baseline: RunRecord | None = None


@attrs.frozen(kw_only=True)
class _Candidate:
    schedule: Schedule
    kept_events: tuple[str, ...]


def _scalars(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _scalars(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _scalars(item)
    else:
        yield value


def protected_events(scenario: Mapping[str, Any]) -> frozenset[str]:
    """The events an invariant's fixed expectation names: their id or a body value is an expected key."""
    expected = set()
    for invariant in scenario.get("invariants") or []:
        if invariant.get("kind") == "at_least_once":
            expected.update(to_json(value) for value in invariant.get("expected") or [])
    if not expected:
        return frozenset()
    named = set()
    for event_id, event in zip(event_ids(scenario), events_of(scenario)):
        values = {to_json(event_id)} | {to_json(value) for value in _scalars({k: v for k, v in event.items() if k != "id"})}
        if values & expected:
            named.add(event_id)
    return frozenset(named)


def _without_events(schedule: Schedule, kept: tuple[str, ...], removed: set[str]) -> _Candidate:
    faults = tuple(f for f in schedule.faults if event_of_invocation(f.invocation) not in removed)
    return _Candidate(
        schedule=Schedule(faults=faults, turns=schedule.turns),
        kept_events=tuple(e for e in kept if e not in removed),
    )


def _chunks(count: int) -> Iterator[tuple[int, int]]:
    """(start, stop) of every chunk of half the items, then quarters, down to pairs."""
    size = count // 2
    while size >= 2:
        for start in range(0, count, size):
            yield start, min(start + size, count)
        size //= 2


def _remove_event_chunks(schedule: Schedule, kept: tuple[str, ...], protected: frozenset[str]) -> Iterator[_Candidate]:
    for start, stop in _chunks(len(kept)):
        removed = {e for e in kept[start:stop] if e not in protected}
        if removed and len(removed) < len(kept):
            yield _without_events(schedule, kept, removed)


def _remove_fault_chunks(schedule: Schedule, kept: tuple[str, ...], protected: frozenset[str]) -> Iterator[_Candidate]:
    faults = schedule.faults
    for start, stop in _chunks(len(faults)):
        yield _Candidate(schedule=Schedule(faults=faults[:start] + faults[stop:], turns=schedule.turns), kept_events=kept)


def _remove_one_fault(schedule: Schedule, kept: tuple[str, ...], protected: frozenset[str]) -> Iterator[_Candidate]:
    for index in range(len(schedule.faults)):
        faults = schedule.faults[:index] + schedule.faults[index + 1 :]
        yield _Candidate(schedule=Schedule(faults=faults, turns=schedule.turns), kept_events=kept)


def _remove_one_event(schedule: Schedule, kept: tuple[str, ...], protected: frozenset[str]) -> Iterator[_Candidate]:
    if len(kept) <= 1:
        return
    for event_id in kept:
        if event_id not in protected:
            yield _without_events(schedule, kept, {event_id})


_Pass = Callable[[Schedule, tuple[str, ...], frozenset[str]], Iterator[_Candidate]]

#: The passes, biggest removal first; after any success the shrinker starts again here.
SHRINK_PASSES: tuple[tuple[str, _Pass], ...] = (
    ("remove_event_chunks", _remove_event_chunks),
    ("remove_fault_chunks", _remove_fault_chunks),
    ("remove_one_fault", _remove_one_fault),
    ("remove_one_event", _remove_one_event),
)


def _size(kept: Sequence[str], schedule: Schedule) -> tuple:
    return schedule_sort_key(len(kept), Schedule(faults=schedule.faults))


@attrs.define(eq=False)
class _Shrinker:
    session: Session
    target: tuple[str, tuple[str, ...]]
    protected: frozenset[str]
    replays: int = 0
    #: The fault-free arrival-order run of the kept events (None: all), by kept events.
    _baselines: dict[tuple[str, ...] | None, RunRecord] = attrs.field(factory=dict)

    def spent(self) -> bool:
        return self.replays >= MAX_SHRINK_RUNS

    def replay(self, schedule: Schedule, kept: Sequence[str] | None) -> RunRecord:
        self.replays += 1
        return replay(self.session, schedule, kept)

    def baseline_run(self, kept: tuple[str, ...] | None) -> RunRecord:
        """The kept events' run with no faults and every turn in arrival order (option 0), run once."""
        if kept not in self._baselines:
            self.replays += 1
            self._baselines[kept] = fault_free_run(self.session, kept)
        return self._baselines[kept]

    def _baseline(self, kept: tuple[str, ...] | None) -> frozenset[str] | None:
        """The invariants the kept events break with no faults, turns in arrival order (None: unsupported)."""
        record = self.baseline_run(kept)
        return None if record.unsupported else frozenset(v.invariant for v in record.violations)

    def dropping_events_alone_breaks(self, kept: tuple[str, ...]) -> bool:
        """Whether the kept events break, with no fault at all, what the whole scenario does not."""
        if self.spent():
            return True
        broken = self._baseline(kept)
        if broken is None:
            return True
        if not broken:
            return False
        whole = self._baseline(None)
        return whole is None or not broken <= whole

    def run(self, record: RunRecord, violation: Violation) -> Shrunk:
        schedule = record.schedule
        kept = tuple(event_ids(record.plan.scenario))
        best = (record, violation)
        replayed_schedule = schedule
        improved = True
        capped = False
        while improved and not capped:
            improved = False
            for _name, candidates in SHRINK_PASSES:
                for candidate in candidates(schedule, kept, self.protected):
                    if self.spent():
                        capped = True
                        break
                    again = self.replay(candidate.schedule, candidate.kept_events)
                    found = None if again.unsupported else same_violation(again.violations, self.target)
                    if found is None:
                        continue
                    if len(candidate.kept_events) < len(kept) and self.dropping_events_alone_breaks(candidate.kept_events):
                        continue
                    taken = again.schedule
                    # Only strictly smaller candidates: fewer events, or as many and fewer faults.
                    assert _size(candidate.kept_events, taken) < _size(kept, schedule), (candidate, schedule)
                    replayed_schedule = candidate.schedule
                    schedule, kept, best = taken, candidate.kept_events, (again, found)
                    improved = True
                    break
                if improved or capped:
                    break
            capped = capped or (improved and self.spent())
        if best[0] is not record:
            # Report the schedule the last replay took, once it is shown to replay the trace;
            # otherwise the schedule that was replayed.
            final = self.replay(schedule, kept)
            found = None if final.unsupported else same_violation(final.violations, self.target)
            if found is not None and final.result.effects == best[0].result.effects:
                best = (final, found)
            else:
                schedule = replayed_schedule
        return Shrunk(
            record=best[0],
            violation=best[1],
            schedule=schedule,
            kept_events=kept,
            replays=self.replays,
            capped=capped,
            baseline=self._baselines.get(kept),
        )


def fault_free_run(session: Session, kept: Sequence[str] | None) -> RunRecord:
    """The kept events (None: all) run with no faults and every turn in arrival order (option 0).

    The shrinker's guard compares candidates by it, and the verdict's ``faultFree`` run
    (``eutaxy.engine.explain``) is it for a violation that needs no fault.
    """
    scenario = session.scenario if kept is None else restrict_events(session.scenario, kept)
    return session.perform(first_plan(scenario, session.seed, (), 0))


def shrink(session: Session, record: RunRecord, violation: Violation) -> Shrunk:
    """Shrink a confirmed violation (``record`` is its replay on the whole scenario)."""
    shrinker = _Shrinker(session=session, target=violation_key(violation), protected=protected_events(session.scenario))
    return shrinker.run(record, violation)
