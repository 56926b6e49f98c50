"""Exploration on several platform instances at once (``--jobs N``), with one job's verdict.

The exploration loop asks its strategy for one plan at a time and learns from each run
before the next plan (seeded exploration's eligible counts and its tree of schedules), so
plan ``i`` is a function of the seed and of runs ``0 .. i-1`` taken in plan order. ``Jobs``
keeps that order and runs ahead of it: beside the plan the loop needs now, it runs the
plans the strategy expects to give next (``lookahead``: what it would plan if the runs in
flight taught it nothing), one per extra platform instance. The loop still takes results
in plan order only: when it asks for a plan, a run of that very plan (equal as data) that a
job made or is making is taken; any other run ahead is dropped, unseen. So the plans run,
the records taken, the first violation (the lowest plan index that violates, never the
first to arrive) and every byte of the verdict are the same with any number of jobs; a
wrong guess costs a run, never a difference. Runs are deterministic functions of their
plan on any instance of the platform (a Worker that keeps state in its module breaks this
on one job as well; the module-state check reports it).

The loop's own platform (job 0) runs in the loop's thread: the plan it needs when no job has
started it, else the next plan ahead no job has started, so every instance stays busy while
the loop waits. Each extra job is a thread that creates its own platform instance (a host
process is tied to the thread that started it), starting only once the first run is taken
(a check that ends at its first run never pays for a second instance), and closes it when
the pool closes. Replays, shrinking and the module-state check run on job 0 alone.
"""

from __future__ import annotations

import os
import threading
from typing import Callable, Protocol, Sequence

import attrs

from eutaxy.core.protocol import Platform, RunPlan

__all__ = ["Jobs", "PlanRunner", "machine_jobs", "usable_jobs"]


class PlanRunner(Protocol):
    """What the session hands an exploration plan to instead of its platform (``Session.jobs``):
    ``Jobs``, or a Bazel merge's recorded shard runs (``shards.Recorded``)."""

    @property
    def size(self) -> int:
        """The jobs running plans: the loop asks its strategy for ``size - 1`` plans ahead."""
        ...

    def run(self, plan: RunPlan, ahead: Sequence[RunPlan]) -> tuple[object, int]:
        """``plan``'s record and the job that made it (0: the session's own platform)."""
        ...


def machine_jobs() -> int:
    """The cores this process may run on (its CPU affinity), ``eutaxy check``'s default ``--jobs``."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


def usable_jobs(requested: int, *, max_runs: int | None, exhaustive: bool) -> int:
    """The jobs a check can use of those ``requested``: one for an exhaustive check (the
    enumerator's next plan depends on the run before it), and no more than the runs after the
    first under ``max_runs`` (the first run measures what later plans draw from, so it runs alone)."""
    if exhaustive:
        return 1
    if max_runs is not None:
        return max(1, min(requested, max_runs - 1))
    return requested


@attrs.define(eq=False)
class _Item:
    """One plan handed to the jobs and, once a job ran it, its record or what it raised."""

    plan: RunPlan
    started: bool = False
    done: bool = False
    result: object = None
    error: BaseException | None = None
    #: The job that ran it (0: the loop's own platform).
    job: int = 0


@attrs.define(eq=False)
class Jobs:
    """``extra`` platform instances beside ``main``, each made by ``create`` in a thread of its own.

    ``perform(plan, platform)`` runs a plan on an instance and checks its log (the session's
    ``perform``); it must touch no shared state.
    """

    main: Platform
    create: Callable[[], Platform]
    extra: int
    perform: Callable[[RunPlan, Platform], object]
    #: Runs made ahead whose plan the loop did not ask for next (a measure, never part of a verdict).
    wasted: int = attrs.field(init=False, default=0)
    #: Runs each job made, job 0 first (a measure, never part of a verdict).
    runs_by_job: list[int] = attrs.field(init=False)
    _queue: list[_Item] = attrs.field(init=False, factory=list)
    _lock: threading.Condition = attrs.field(init=False, factory=threading.Condition)
    _threads: list[threading.Thread] = attrs.field(init=False, factory=list)
    _closed: bool = attrs.field(init=False, default=False)
    _failure: BaseException | None = attrs.field(init=False, default=None)

    def __attrs_post_init__(self) -> None:
        assert self.extra >= 1, self.extra
        self.runs_by_job = [0] * (self.extra + 1)

    @property
    def size(self) -> int:
        """All the jobs, job 0 included."""
        return self.extra + 1

    def run(self, plan: RunPlan, ahead: Sequence[RunPlan]) -> tuple[object, int]:
        """The record of ``plan`` and the job that ran it (whichever got to it first); ``ahead``
        are the plans expected next."""
        with self._lock:
            self._align(plan, ahead)
            head = self._queue[0]
            self._lock.notify_all()
        # Bounded: each pass runs one plan on job 0 or waits for a job to finish one.
        while True:
            with self._lock:
                if self._failure is not None:
                    raise self._failure
                if head.done:
                    self._queue.pop(0)
                    break
                item = next((one for one in self._queue if not one.started), None)
                if item is None:
                    self._lock.wait()
                    continue
                item.started = True
            self._perform(item, self.main, 0)
        if not self._threads and self.extra:
            self._start()
        if head.error is not None:
            raise head.error
        return head.result, head.job

    def _align(self, plan: RunPlan, ahead: Sequence[RunPlan]) -> None:
        """Queue ``plan`` and then ``ahead``, in that order, keeping a queued run of each (equal as
        data: a draw the strategy skipped shifts the plans, it does not change them); drop the rest."""
        left = list(self._queue)
        queue: list[_Item] = []
        for wanted in (plan, *ahead):
            kept = next((item for item in left if item.plan == wanted), None)
            if kept is None:
                queue.append(_Item(plan=wanted))
            else:
                left.remove(kept)
                queue.append(kept)
        self.wasted += sum(1 for item in left if item.started)
        self._queue = queue

    def _perform(self, item: _Item, platform: Platform, job: int) -> None:
        result: object = None
        error: BaseException | None = None
        try:
            result = self.perform(item.plan, platform)
        except BaseException as raised:  # noqa: BLE001 - the loop raises it if it takes this run
            error = raised
        with self._lock:
            item.result, item.error, item.done, item.job = result, error, True, job
            self.runs_by_job[job] += 1
            self._lock.notify_all()

    def _start(self) -> None:
        for job in range(1, self.extra + 1):
            thread = threading.Thread(target=self._job, args=(job,), name=f"eutaxy-job-{job}", daemon=True)
            self._threads.append(thread)
            thread.start()

    def _job(self, job: int) -> None:
        try:
            platform = self.create()
        except BaseException as error:  # noqa: BLE001 - the loop raises it at its next run
            with self._lock:
                if not self._closed:
                    self._failure = error
                self._lock.notify_all()
            return
        try:
            # Bounded by the loop: each pass runs one queued plan, and the pool closes when exploration ends.
            while True:
                with self._lock:
                    item = next((one for one in self._queue if not one.started), None)
                    while item is None and not self._closed:
                        self._lock.wait()
                        item = next((one for one in self._queue if not one.started), None)
                    if self._closed or item is None:
                        return
                    item.started = True
                self._perform(item, platform, job)
        finally:
            platform.close()

    def close(self) -> None:
        """Drop every run ahead and let each job close its instance (a job still starting one closes it when started)."""
        with self._lock:
            self._closed = True
            self.wasted += sum(1 for item in self._queue if item.started)
            self._queue.clear()
            self._lock.notify_all()
