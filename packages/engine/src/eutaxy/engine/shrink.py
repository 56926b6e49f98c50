"""The shrinker: the smallest schedule and event set that still break the same invariant.

It starts from a replayed violation and runs named passes (``SHRINK_PASSES``) to a fixed
point. Chunks go first, as delta debugging does: remove half the kept events, then
quarters and so on down to pairs (each with the faults of its invocations), then chunks
of faults the same way; then single faults, then single events; then each short batch
(a queue delivery that took fewer of the waiting messages than the platform would) is
dropped, so its delivery takes the platform's batch again (option 0); then the turn picks:
each pick lowered in place, then each pick moved to a higher option when that leaves
the trace with fewer switches between invocations. A violation among a thousand events
thus shrinks in a few dozen replays rather than a thousand. A candidate is kept only when
its replay breaks the same invariant for the same keys; the invariants are checked
against the remaining events, so expectations derived from the input (per-message
at-least-once) are re-derived and cannot break merely because they went stale. A kept
candidate's schedule is the one its replay took (the faults injected, every turn pick);
a last replay shows it gives the final trace again.

A message is removed from inside a batch too: a queue invocation that took several
messages lists them (``RunResult.invocations``' ``messages``), so removing one keeps the
batch's faults, re-keyed to the batch as it is then delivered (named after its first kept
message, each fault earlier by the points the removed messages' handling opened before it;
``_fault_in_batch``). A fault at a removed message's own point goes with it. A short batch
(the schedule's ``batches``) loses the removed messages the same way: it is re-keyed to its
first kept message and takes that many fewer (``_short_batch_without``), so the messages
after it still wait for the next delivery.

A shrunk trace must be a true counterexample, so two guards keep a violation from
coming from dropping events alone:

- an event that an invariant's fixed expectation names (``at_least_once``'s expected
  keys, matched against the event's id and the values in its body) is never removed;
- a candidate with fewer events is accepted only if its kept events, replayed with no
  faults and turns in arrival order (option 0), break no invariant that the whole
  scenario's such run does not break. A bug that shows without faults still shrinks; a
  "lost" key whose event was removed does not.

Design notes, in the manner of Hypothesis's conjecture shrinker:

- One order for "smaller": ``eutaxy.core.schedule.schedule_sort_key`` over the kept
  events, the schedule the replay took and the trace's switches. A candidate is kept only
  when strictly smaller, and ``_Shrinker.accept`` asserts it, so the passes cannot cycle.
- A pass only proposes candidates; whether one helps is decided by its replay, so the
  passes are deterministic and the order of their candidates is the only policy. After
  any success the shrinker starts again from the first pass, so the biggest removals are
  retried on the smaller target.
- Turn picks are indices into the options a turn offered. Changing one can change what
  later indices name; a replay clamps a pick that no longer fits to option 0 and records
  the picks it took, so the kept schedule always replays its own trace.
- Every replay goes through one cache keyed by (schedule, kept events): a candidate met
  twice (a pass proposing what an earlier pass already tried) is never run again. Runs
  are deterministic, so the cached record is the replay.

``SHRINK_RUNS_MAX`` bounds the replays (the guard's fault-free runs included); each
pass's runs, cache hits and shrinks go to the verdict's ``provenance.shrinkPasses``.
Wall time never stops shrinking, so the verdict stays deterministic.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping, Sequence

import attrs

from eutaxy.core.canonical import to_json
from eutaxy.core.effects import invocation_id, parse_invocation
from eutaxy.core.schedule import BatchAt, FaultAt, Schedule, schedule_sort_key, turn_switches
from eutaxy.core.violations import Violation

from eutaxy.engine.plans import event_ids, event_of_invocation, events_of, first_plan, restrict_events
from eutaxy.engine.replay import replay
from eutaxy.engine.session import RunRecord, Session, same_violation, violation_key

__all__ = ["CHECK_GRACE_MS", "SHRINK_PASSES", "SHRINK_RUNS_MAX", "ShrinkPass", "Shrunk", "fault_free_run", "protected_events", "shrink"]

#: Replays the shrinker may spend: enough for a few dozen faults and events removed one
#: at a time, or a thousand events halved down to one, and small next to an exploration
#: budget.
SHRINK_RUNS_MAX = 500
#: The check as a whole may take its budget (``budgetMs``) plus this much real time: past it
#: the shrinker stops where it is (as at SHRINK_RUNS_MAX, ``capped``), so shrinking and
#: reporting end within a fixed grace whatever the runs cost.
CHECK_GRACE_MS = 300_000


@attrs.frozen(kw_only=True)
class Shrunk:
    record: RunRecord
    violation: Violation
    schedule: Schedule
    kept_events: tuple[str, ...]
    #: Replays spent, the fault-free guard runs included.
    replays: int
    #: Whether ``SHRINK_RUNS_MAX`` (or the check's grace, CHECK_GRACE_MS) stopped the shrinker before a fixed point.
    capped: bool
    #: The kept events' fault-free arrival-order run, when the guard already ran it.
    baseline: RunRecord | None = None
    #: Each pass, in ``SHRINK_PASSES`` order, with what it spent and kept.
    passes: tuple["ShrinkPass", ...] = ()


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


@attrs.frozen(kw_only=True)
class _Target:
    """The smallest violating run so far: its replay record and the events it keeps."""

    record: RunRecord
    kept_events: tuple[str, ...]

    @property
    def schedule(self) -> Schedule:
        return self.record.schedule

    def sort_key(self) -> tuple:
        return _sort_key(self.kept_events, self.record)


def _sort_key(kept_events: Sequence[str], record: RunRecord) -> tuple:
    return schedule_sort_key(len(kept_events), record.schedule, switches=turn_switches(record.result.effects))


def _without_events(target: _Target, removed: set[str]) -> _Candidate:
    """The target without the ``removed`` events and the faults their invocations took.

    A fault in a batch that keeps some of its messages moves with the batch
    (:func:`_fault_in_batch`) instead of going with the removed ones, and one in an
    invocation of the platform's own moves within it (:func:`_fault_in_own_work`).
    """
    batches = _batches(target.record)
    inputs = set(event_ids(target.record.plan.scenario))
    kept = tuple(e for e in target.kept_events if e not in removed)
    faults = []
    for fault in target.schedule.faults:
        members = batches.get(fault.invocation)
        if members is None:
            event = event_of_invocation(fault.invocation)
            if event not in inputs:
                moved = _fault_in_own_work(target.record, fault, removed, kept)
                if moved is not None:
                    faults.append(moved)
            elif event not in removed:
                faults.append(fault)
            continue
        moved = _fault_in_batch(target.record, fault, members, removed)
        if moved is not None:
            faults.append(moved)
    short = tuple(
        moved
        for moved in (_short_batch_without(batch, batches, removed) for batch in target.schedule.batches)
        if moved is not None
    )
    return _Candidate(schedule=Schedule(faults=tuple(faults), turns=target.schedule.turns, batches=short), kept_events=kept)


def _text(value: Any) -> str:
    """A scalar as text to look for: a string as it is, anything else as canonical JSON."""
    return value if isinstance(value, str) else to_json(value)


def _batches(record: RunRecord) -> dict[str, tuple[str, ...]]:
    """Each invocation that delivered a batch of several messages: their ids, in batch order."""
    return {one.invocation: one.messages for one in record.result.invocations if one.messages}


def _short_batch_without(batch: BatchAt, batches: Mapping[str, tuple[str, ...]], removed: set[str]) -> BatchAt | None:
    """Where a short batch lands once the ``removed`` events leave it (None: with them).

    Its delivery takes as many fewer messages as were removed from it, so the messages
    after it are still left for the next delivery, and it is named after its first kept
    message (with the batch's attempt), as its faults are (``_fault_in_batch``). A batch of
    one lists no members: it goes with its message.
    """
    members = batches.get(batch.invocation) or (batch.invocation.rsplit("#", 1)[0],)
    kept = [member for member in members if member.split("#", 1)[0] not in removed]
    if not kept:
        return None
    if len(kept) == len(members):
        return batch
    _, attempt = parse_invocation(batch.invocation)
    invocation = batch.invocation if kept[0] == members[0] else invocation_id(kept[0], attempt)
    return BatchAt(invocation=invocation, size=len(kept))


def _fault_in_batch(record: RunRecord, fault: FaultAt, members: tuple[str, ...], removed: set[str]) -> FaultAt | None:
    """Where ``fault`` lands once the ``removed`` events leave its batch (None: with them).

    The batch keeps its other messages, so it is still delivered, named after its first
    kept message (with the batch's attempt), and the fault stays at the same point, which
    comes earlier by the points the removed messages' handling opened before it. Those are
    told apart by what they name: a point whose arguments hold a removed message's id or a
    value of its body that no kept message of the batch holds. A guess the replay decides:
    a candidate that lands the fault elsewhere does not break the same invariant, and is
    not kept.
    """
    # A message's input event is its id up to the first '#' (a produced one is ``req-1#1/sent-1``).
    kept = [member for member in members if member.split("#", 1)[0] not in removed]
    if not kept:
        return None
    if len(kept) == len(members):
        return fault
    gone = [member for member in members if member not in kept]
    ordinal = _ordinal_without(record, fault, gone, kept)
    if ordinal is None:
        return None  # the faulted point was the removed message's own
    _, attempt = parse_invocation(fault.invocation)
    invocation = fault.invocation if kept[0] == members[0] else invocation_id(kept[0], attempt)
    return FaultAt(invocation=invocation, ordinal=ordinal, fault=fault.fault)


def _fault_in_own_work(record: RunRecord, fault: FaultAt, removed: set[str], kept: Sequence[str]) -> FaultAt | None:
    """Where ``fault`` lands once the ``removed`` events are gone, in an invocation of the
    platform's own that does the work of several events (a Durable Object's work after its
    answers, ``DO:RUNNER/runner/after``): at the same point, earlier by the points the removed
    events' work opened before it, told apart as ``_fault_in_batch`` tells them (None: the
    faulted point was theirs). A guess the replay decides."""
    ordinal = _ordinal_without(record, fault, sorted(removed), kept)
    return None if ordinal is None else FaultAt(invocation=fault.invocation, ordinal=ordinal, fault=fault.fault)


def _ordinal_without(record: RunRecord, fault: FaultAt, gone: Sequence[str], kept: Sequence[str]) -> int | None:
    """The ordinal ``fault`` takes in its invocation without the points that name a ``gone``
    event: its id or a value of its body that no ``kept`` event holds. None when the faulted
    point names one itself."""
    bodies = dict(zip(event_ids(record.plan.scenario), events_of(record.plan.scenario), strict=True))

    def values(member: str) -> set[str]:
        return {_text(value) for value in (member, *_scalars(bodies.get(member, {}).get("body")))}

    named = set().union(*(values(member) for member in gone)) - set().union(*(values(member) for member in kept))
    points: dict[int, set[str]] = {}
    for effect in record.result.effects:
        if effect.get("invocation") == fault.invocation:
            payload = effect.get("payload")
            args = payload.get("args") if isinstance(payload, Mapping) else None
            points.setdefault(int(effect["ordinal"]), set()).update(_text(value) for value in _scalars(args))

    # A string holding a removed string value names it too (``orders#o-1`` names ``o-1``);
    # other values, and short strings, only as themselves.
    strings = {member for member in gone} | {
        value for member in gone for value in _scalars(bodies.get(member, {}).get("body")) if isinstance(value, str)
    }
    within = {value for value in strings & named if len(value) >= 3}

    def names_gone(texts: set[str]) -> bool:
        return bool(texts & named) or any(value in text for value in within for text in texts)

    if names_gone(points.get(fault.ordinal, set())):
        return None
    return fault.ordinal - sum(1 for ordinal, texts in points.items() if ordinal < fault.ordinal and names_gone(texts))


def _chunks(count: int) -> Iterator[tuple[int, int]]:
    """(start, stop) of every chunk of half the items, then quarters, down to pairs."""
    size = count // 2
    # Bounded: size halves every pass.
    while size >= 2:
        for start in range(0, count, size):
            yield start, min(start + size, count)
        size //= 2


def _remove_event_chunks(target: _Target, protected: frozenset[str]) -> Iterator[_Candidate]:
    kept = target.kept_events
    for start, stop in _chunks(len(kept)):
        removed = {e for e in kept[start:stop] if e not in protected}
        if removed and len(removed) < len(kept):
            yield _without_events(target, removed)


def _remove_fault_chunks(target: _Target, protected: frozenset[str]) -> Iterator[_Candidate]:
    faults = target.schedule.faults
    for start, stop in _chunks(len(faults)):
        schedule = attrs.evolve(target.schedule, faults=faults[:start] + faults[stop:])
        yield _Candidate(schedule=schedule, kept_events=target.kept_events)


def _remove_one_fault(target: _Target, protected: frozenset[str]) -> Iterator[_Candidate]:
    faults = target.schedule.faults
    for index in range(len(faults)):
        schedule = attrs.evolve(target.schedule, faults=faults[:index] + faults[index + 1 :])
        yield _Candidate(schedule=schedule, kept_events=target.kept_events)


def _remove_one_short_batch(target: _Target, protected: frozenset[str]) -> Iterator[_Candidate]:
    """Each short batch dropped, from the left: its delivery takes the platform's batch (option 0)."""
    batches = target.schedule.batches
    for index in range(len(batches)):
        schedule = attrs.evolve(target.schedule, batches=batches[:index] + batches[index + 1 :])
        yield _Candidate(schedule=schedule, kept_events=target.kept_events)


def _remove_one_event(target: _Target, protected: frozenset[str]) -> Iterator[_Candidate]:
    kept = target.kept_events
    if len(kept) <= 1:
        return
    for event_id in kept:
        if event_id not in protected:
            yield _without_events(target, {event_id})


def _with_pick(target: _Target, index: int, pick: int) -> _Candidate:
    turns = target.schedule.turns
    return _Candidate(
        schedule=attrs.evolve(target.schedule, turns=turns[:index] + (pick,) + turns[index + 1 :]),
        kept_events=target.kept_events,
    )


def _turn_option_counts(record: RunRecord) -> list[int]:
    """How many options each turn offered, in the order of the schedule's turn picks."""
    counts = [len(decision.options) for decision in record.result.decisions if decision.kind == "turn"]
    assert len(counts) == len(record.schedule.turns), (counts, record.schedule.turns)
    return counts


def _lower_turn_picks(target: _Target, protected: frozenset[str]) -> Iterator[_Candidate]:
    """Each pick above 0, from the left, lowered to every lower option (0 first); later picks kept."""
    for index, pick in enumerate(target.schedule.turns):
        for lower in range(pick):
            yield _with_pick(target, index, lower)


def _fewer_turn_switches(target: _Target, protected: frozenset[str]) -> Iterator[_Candidate]:
    """Each pick, from the left, raised to every higher option its turn offered; later picks kept.

    A higher pick is larger in the order unless its trace has fewer switches between
    invocations (or fewer turns), so only those are kept: this is the pass that lets an
    invocation run on instead of handing over to the one waiting longest.
    """
    for index, (pick, count) in enumerate(zip(target.schedule.turns, _turn_option_counts(target.record))):
        for higher in range(pick + 1, count):
            yield _with_pick(target, index, higher)


_Pass = Callable[[_Target, frozenset[str]], Iterator[_Candidate]]

#: The passes by name, biggest removal first; after any success the shrinker starts again
#: from the first.
SHRINK_PASSES: tuple[tuple[str, _Pass], ...] = (
    ("remove_event_chunks", _remove_event_chunks),
    ("remove_fault_chunks", _remove_fault_chunks),
    ("remove_one_fault", _remove_one_fault),
    ("remove_one_event", _remove_one_event),
    ("remove_one_short_batch", _remove_one_short_batch),
    ("lower_turn_picks", _lower_turn_picks),
    ("fewer_turn_switches", _fewer_turn_switches),
)


@attrs.define(eq=False)
class ShrinkPass:
    """One named pass of one shrink, with what it spent and what it kept."""

    name: str
    candidates: _Pass = attrs.field(repr=False)
    #: Replays its candidates cost, the fault-free guard runs included.
    runs: int = 0
    #: Candidates the replay cache answered (met before, never run again).
    cached: int = 0
    #: Candidates kept (each strictly smaller than the target before it).
    shrinks: int = 0

    def to_data(self) -> dict[str, Any]:
        return {"name": self.name, "runs": self.runs, "cached": self.cached, "shrinks": self.shrinks}


@attrs.define(eq=False)
class _Shrinker:
    session: Session
    target: tuple[str, tuple[str, ...]]
    protected: frozenset[str]
    #: The passes to run, in order (tests run one alone).
    pass_names: tuple[str, ...] = tuple(name for name, _ in SHRINK_PASSES)
    replays: int = 0
    #: Replays by (schedule, kept events); runs are deterministic, so a hit is the replay.
    _cache: dict[tuple[Schedule, tuple[str, ...]], RunRecord] = attrs.field(factory=dict)
    #: The fault-free arrival-order run of the kept events (None: all), by kept events.
    _baselines: dict[tuple[str, ...] | None, RunRecord] = attrs.field(factory=dict)

    def spent(self) -> bool:
        if self.replays >= SHRINK_RUNS_MAX:
            return True
        return self.session.elapsed_ms() >= self.session.bounds.budget_ms + CHECK_GRACE_MS

    def replay(self, schedule: Schedule, kept: tuple[str, ...]) -> tuple[RunRecord, bool]:
        """The replay of ``schedule`` on ``kept``, and whether the cache answered it."""
        key = (schedule, kept)
        if key in self._cache:
            return self._cache[key], True
        self.replays += 1
        record = replay(self.session, schedule, kept)
        self._cache[key] = record
        return record, False

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

    def consider(self, current: _Target, candidate: _Candidate, shrink_pass: ShrinkPass) -> tuple[_Target, Violation] | None:
        """The candidate's replay as the new target, when it is a strictly smaller true counterexample."""
        before = self.replays
        again, cached = self.replay(candidate.schedule, candidate.kept_events)
        shrink_pass.cached += int(cached)
        try:
            found = None if again.unsupported else same_violation(again.violations, self.target)
            if found is None:
                return None
            smaller = _Target(record=again, kept_events=candidate.kept_events)
            # Only strict progress: a moved turn pick can give a longer or more switching run.
            if not smaller.sort_key() < current.sort_key():
                return None
            if len(candidate.kept_events) < len(current.kept_events) and self.dropping_events_alone_breaks(
                candidate.kept_events
            ):
                return None
            return smaller, found
        finally:
            shrink_pass.runs += self.replays - before

    def run(self, record: RunRecord, violation: Violation) -> Shrunk:
        passes = tuple(ShrinkPass(name=name, candidates=fn) for name, fn in SHRINK_PASSES if name in self.pass_names)
        assert len(passes) == len(self.pass_names), self.pass_names
        current = _Target(record=record, kept_events=tuple(event_ids(record.plan.scenario)))
        found = violation
        #: The candidate schedule whose replay gave ``current`` (what to report if its own
        #: recorded schedule does not replay the trace).
        replayed_schedule = current.schedule
        improved = True
        capped = False
        # Bounded: a pass that improves makes the target strictly smaller by sort_key (asserted
        # below), and every candidate replay counts against the shrink cap (``spent``).
        while improved and not capped:
            improved = False
            for shrink_pass in passes:
                for candidate in shrink_pass.candidates(current, self.protected):
                    if self.spent():
                        capped = True
                        break
                    smaller = self.consider(current, candidate, shrink_pass)
                    if smaller is None:
                        continue
                    assert smaller[0].sort_key() < current.sort_key(), (smaller[0], current)
                    current, found = smaller
                    replayed_schedule = candidate.schedule
                    shrink_pass.shrinks += 1
                    improved = True
                    break
                if improved or capped:
                    break
            capped = capped or (improved and self.spent())
        best, schedule = current.record, current.schedule
        if best is not record:
            # Report the schedule the last replay took, once it is shown to replay the trace;
            # otherwise the schedule that was replayed.
            final, _cached = self.replay(schedule, current.kept_events)
            again = None if final.unsupported else same_violation(final.violations, self.target)
            if again is not None and final.result.effects == best.result.effects:
                best, found = final, again
            else:
                schedule = replayed_schedule
        return Shrunk(
            record=best,
            violation=found,
            schedule=schedule,
            kept_events=current.kept_events,
            replays=self.replays,
            capped=capped,
            baseline=self._baselines.get(current.kept_events),
            passes=passes,
        )


def fault_free_run(session: Session, kept: Sequence[str] | None) -> RunRecord:
    """The kept events (None: all) run with no faults and every turn in arrival order (option 0).

    The shrinker's guard compares candidates by it, and the verdict's ``faultFree`` run
    (``eutaxy.engine.explain``) is it for a violation that needs no fault.
    """
    scenario = session.scenario if kept is None else restrict_events(session.scenario, kept)
    return session.perform(first_plan(scenario, session.seed, (), 0, max_short_batches=0))


def shrink(
    session: Session, record: RunRecord, violation: Violation, *, passes: Sequence[str] | None = None
) -> Shrunk:
    """Shrink a confirmed violation (``record`` is its replay on the whole scenario).

    ``passes`` names the passes to run (all of ``SHRINK_PASSES`` when None), in their order.
    """
    names = tuple(name for name, _ in SHRINK_PASSES)
    if session.bounds.max_short_batches == 0:
        # No run of this check takes a short batch, so the pass has nothing to do and is
        # not listed (the verdict's shrinkPasses read as before the bound existed).
        names = tuple(name for name in names if name != "remove_one_short_batch")
    if passes is not None:
        unknown = sorted(set(passes) - {name for name, _ in SHRINK_PASSES})
        assert not unknown, f"unknown shrink passes {unknown}; passes are {names}"
        names = tuple(name for name in names if name in passes)
    shrinker = _Shrinker(
        session=session, target=violation_key(violation), protected=protected_events(session.scenario), pass_names=names
    )
    return shrinker.run(record, violation)
