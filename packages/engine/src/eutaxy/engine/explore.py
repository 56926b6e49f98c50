"""The exploration loop: one loop for every strategy, and the interface strategies implement.

A strategy decides which runs to make; the loop makes them. It is Shuttle's split (one
``Scheduler`` trait, one file per scheduler: random, DFS, replay) and Hypothesis's (the
engine runs phases; what a phase generates is its own). A strategy answers three questions:

- ``finished()``: is nothing left to run? Asked before every run; ``covers`` says whether
  finishing means every schedule within the bounds ran (BOUNDED then says ``completed``).
- ``next_plan()``: the plan of the next run.
- ``observe(record)``: what a run teaches it. It may end exploration with a ``Stopped``
  (a run the strategy cannot go past, such as a run that left its forced prefix).

and ``report()`` gives the strategy's own part of the verdict (the enumerator's
``exhaustive``; None for the others).

The loop owns what is the same for every strategy: the session's bounds (checked between
runs), a run that is UNSUPPORTED (it ends exploration with its cause), and the rule that a
violation is reported only from its replay (``replay.confirm``). The strategies live one to
a file: ``seeded.py`` (draws from the seed, then enumerates what is left), ``exhaustive.py``
(every schedule, depth first, with sleep sets) and ``replay.py`` (given schedules, once
each). Running plans on several jobs (``--jobs``, ``jobs.py``) is a wrapper over this
interface: a strategy may also answer ``lookahead(count)``, the plans it would give next if
the runs in flight taught it nothing, which the other jobs run meanwhile; the loop still
takes each plan's record in plan order, and a run made ahead of a plan the strategy did not
give is dropped, so the verdict is one job's. A strategy without ``lookahead`` runs on one job.
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence

from eutaxy.core.protocol import RunPlan

from eutaxy.engine.bounds import RUNS_MAX
from eutaxy.engine.outcomes import Exhausted, Found, Outcome, Stopped
from eutaxy.engine.replay import confirm
from eutaxy.engine.session import RunRecord, Session

__all__ = ["Strategy", "explore"]


class Strategy(Protocol):
    """What to run next, what a run teaches, and when nothing is left (see the module docstring)."""

    #: Finishing means every schedule within the bounds ran (BOUNDED says ``completed``).
    covers: bool

    def finished(self) -> bool: ...

    def next_plan(self) -> RunPlan: ...

    def observe(self, record: RunRecord) -> Stopped | None: ...

    def report(self) -> dict[str, Any] | None: ...


def explore(session: Session, strategy: Strategy) -> Outcome:
    """Run the strategy's plans until a violation replays, a run is unsupported, a bound stops
    exploration, or the strategy has nothing left to run."""
    # Bounded: every pass makes one exploration run, and a check makes at most RUNS_MAX
    # (bounds.maxRuns is at most that, and the budget stops one without it long before).
    for _ in range(RUNS_MAX + 1):
        if strategy.finished():
            return Exhausted(bounds_reached=(), exhaustive=strategy.report(), completed=strategy.covers)
        reason = session.stop_reason()
        if reason is not None:
            return Exhausted(bounds_reached=(reason,), exhaustive=strategy.report())
        plan = strategy.next_plan()
        record = session.explore(plan, _ahead(session, strategy))
        if record.unsupported:
            end = record.result.end
            assert end.cause is not None, end  # RunEnd pairs unsupported with its cause
            return Stopped(cause=end.cause, detail=end.detail or "", exhaustive=strategy.report())
        stopped = strategy.observe(record)
        if stopped is not None:
            return stopped
        if record.violations:
            confirmed = confirm(session, record)
            if confirmed is not None:
                replayed, violation = confirmed
                return Found(record=replayed, violation=violation, exhaustive=strategy.report())
    raise AssertionError(f"exploration made {RUNS_MAX + 1} runs and no bound stopped it (RUNS_MAX is {RUNS_MAX})")


def _ahead(session: Session, strategy: Strategy) -> Sequence[RunPlan]:
    """The plans the strategy expects after the one it just gave, one per other job, within ``maxRuns``."""
    lookahead = getattr(strategy, "lookahead", None)
    if session.jobs is None or lookahead is None:
        return ()
    count = session.jobs.size - 1
    if session.bounds.max_runs is not None:
        count = min(count, session.bounds.max_runs - session.runs - 1)
    return lookahead(count) if count > 0 else ()
