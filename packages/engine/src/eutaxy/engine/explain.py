"""What the fault changed: the shrunk counterexample beside the same events run without it.

A VIOLATED verdict shows one run that breaks an invariant. A reader then asks what the
injected fault (or the interleaving) did that a plain run would not. This module answers
with a second run of the same kept events, the *fault-free run*:

- when the shrunk schedule injects faults, the kept events are replayed with none of them
  and every turn pick and short batch as in the counterexample (``changed: "faults"``);
- when it injects none but takes a short batch, they are run with every delivery taking
  the platform's batch and every turn in arrival order (``changed: "batches"``);
- when it injects none and takes no short batch but picked some turn other than arrival order, they are run with
  every turn in arrival order (``changed: "turns"``);
- otherwise the counterexample already is that run (``changed: "nothing"``): the bug
  needs no fault and no interleaving.

Both runs go through the shrinker's own machinery: the arrival-order run is the
shrinker's guard run (``shrink.fault_free_run``, reused when the guard already ran it
for these events) and the turns-kept run is an ordinary ``replay``. The runs are then
compared effect point by effect point (a call with the result and fault that follow it);
a fault on a point is not itself a difference, so the first difference is the first
thing the fault *caused*. Virtual time is left out of the comparison, since a fault may
shift the clock without changing what ran. The run is not counted in
``provenance.shrinkReplays``: it explains the verdict and never changes it.
"""

from __future__ import annotations

from typing import Sequence

from eutaxy.core.canonical import to_json
from eutaxy.core.effect_points import effect_points
from eutaxy.core.effects import SNAPSHOT, Effect, as_effects
from eutaxy.core.schedule import Schedule
from eutaxy.core.verdicts import Divergence, FaultFree, SnapshotName

from eutaxy.engine.replay import replay
from eutaxy.engine.session import RunRecord, Session
from eutaxy.engine.shrink import Shrunk, fault_free_run

__all__ = ["DIVERGENCE_POINTS_MAX", "divergence", "explain"]

#: Effect points kept on each side from where the runs part: enough to see the
#: consequence (a redelivery, a second write), few enough to read side by side.
DIVERGENCE_POINTS_MAX = 6


def explain(session: Session, shrunk: Shrunk) -> FaultFree:
    """The verdict's ``faultFree`` field: the comparison run and where it parts from the trace."""
    schedule = shrunk.schedule
    if schedule.faults:
        changed = "faults"
    elif schedule.batches:
        # The plain run takes the platform's batches (and arrival order): what it changes is the grouping.
        changed = "batches"
    elif any(turn != 0 for turn in schedule.turns):
        changed = "turns"
    else:
        changed = "nothing"
    record = _comparison_run(session, shrunk, keep_turns=changed == "faults")
    trace = as_effects(record.result.effects)
    violating = as_effects(shrunk.record.result.effects)
    return FaultFree(
        changed=changed,
        schedule=record.schedule,
        end=record.result.end,
        violations=tuple(record.violations),
        trace=tuple(trace),
        console=record.result.console,
        divergence=divergence(violating, trace),
        state_differs=_state_differs(violating, trace),
    )


def _comparison_run(session: Session, shrunk: Shrunk, *, keep_turns: bool) -> RunRecord:
    """The kept events without the faults: with the trace's turns and short batches when
    ``keep_turns`` (only the faults differ), else the plain run."""
    turns = shrunk.schedule.turns if keep_turns else ()
    batches = shrunk.schedule.batches if keep_turns else ()
    if turns or batches:
        return replay(session, Schedule(faults=(), turns=turns, batches=batches), shrunk.kept_events)
    # No turn to keep: the run with every turn in arrival order, the shrinker's guard run.
    if shrunk.baseline is not None:
        return shrunk.baseline
    return fault_free_run(session, shrunk.kept_events)


def _point_key(point: Sequence[Effect]) -> str:
    """What must match for two points to be the same: every record but a fault on a call, time left out."""
    records = [effect for effect in point if effect.kind != "fault"] or list(point)
    return to_json([{k: v for k, v in effect.to_data().items() if k != "time"} for effect in records])


def divergence(violating: Sequence[Effect], fault_free: Sequence[Effect]) -> Divergence | None:
    """Where two logs part: the points both share first, then each side's next points (None: no difference).

    ``agreedPoints`` counts the effect points both runs share from the start; ``violating``
    and ``faultFree`` hold the effect records of each side's next points, at most
    ``DIVERGENCE_POINTS_MAX`` each (a side that ended holds none).
    """
    ours, theirs = effect_points(violating), effect_points(fault_free)
    agreed = 0
    while agreed < min(len(ours), len(theirs)) and _point_key(ours[agreed]) == _point_key(theirs[agreed]):
        agreed += 1
    if agreed == len(ours) == len(theirs):
        return None
    window = slice(agreed, agreed + DIVERGENCE_POINTS_MAX)
    return Divergence(
        agreed_points=agreed,
        violating=tuple(effect for point in ours[window] for effect in point),
        fault_free=tuple(effect for point in theirs[window] for effect in point),
    )


def _snapshots(effects: Sequence[Effect]) -> dict[tuple[str, str], str]:
    return {(str(effect.target), str(effect.op)): to_json(effect.payload) for effect in effects if effect.kind == SNAPSHOT}


def _state_differs(violating: Sequence[Effect], fault_free: Sequence[Effect]) -> tuple[SnapshotName, ...]:
    """The state snapshots (by target and op) whose contents differ between the runs, in the trace's order."""
    ours, theirs = _snapshots(violating), _snapshots(fault_free)
    order = list(ours) + [key for key in theirs if key not in ours]
    return tuple(
        SnapshotName(target=target, op=op) for target, op in order if ours.get((target, op)) != theirs.get((target, op))
    )
