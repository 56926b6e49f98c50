"""Prefix sharing: a run starts from a state an earlier run reached, not from the reset.

The enumerator's runs share their prefix with the run before them (depth first, the next
schedule differs from the last only from some decision on), and runs are deterministic,
so the state a run reaches before its decision ``k`` depends only on the plan's fixed
parts (scenario, seed, streams, the fault and short-batch bounds) and the options taken at
decisions ``0 .. k-1``. A platform that can copy its whole run state (the toy platform) takes
a checkpoint at points of a run, each keyed by the options taken before it; a later plan
whose forced prefix repeats those options starts from the latest such checkpoint instead
of running the shared prefix again. The policy past the prefix plays no part: a decision
the prefix forces never asks it (``follower.py``).

``Checkpoints`` is that bookkeeping, the one rule every such platform follows. The states
are the platform's own (``take`` stores what it is given, ``resume`` hands it back, and
the platform copies it before running on, as a later plan may start from it again); they
are kept as a stack along the last run's path, as the enumerator keeps its frames: a run
that starts from a checkpoint forgets the ones past it, which belong to a path no later
plan of a depth-first walk comes back to.

A platform offers this as ``run_shared(plan)`` (``SharesPrefixes``), answering exactly what
``run(plan)`` would: only exploration runs use it (``Session.explore``). Replay, shrinking,
the module-state check and the audit always run from the reset, so the module-state check
and the audit compare shared runs against fresh ones.
"""

from __future__ import annotations

from typing import Any, Generic, Protocol, Sequence, TypeVar, runtime_checkable

import attrs

from eutaxy.core.protocol import RunPlan, RunResult

__all__ = ["Checkpoints", "SharesPrefixes"]

State = TypeVar("State")


@runtime_checkable
class SharesPrefixes(Protocol):
    """A platform that can start a run from a checkpoint of an earlier one."""

    def run_shared(self, plan: RunPlan) -> RunResult:
        """What ``run(plan)`` answers, possibly from a state an earlier ``run_shared`` reached."""
        ...


def _fixed_parts(plan: RunPlan) -> tuple[Any, ...]:
    """What, beside the options taken, the state before a decision depends on."""
    streams = tuple(sorted((name, tuple(words)) for name, words in plan.streams.items()))
    return (plan.seed, streams, plan.max_faults, plan.max_short_batches)


@attrs.define(eq=False)
class Checkpoints(Generic[State]):
    """States of earlier runs along the last run's path, by the options taken before each."""

    _fixed: tuple[Any, ...] | None = attrs.field(init=False, default=None)
    _scenario: Any = attrs.field(init=False, default=None)
    #: (options taken before the state, the state), in the order the run reached them.
    _stack: list[tuple[tuple[int, ...], State]] = attrs.field(init=False, factory=list)
    #: Checkpoints taken and runs started from one, for the bench and the tests.
    taken: int = attrs.field(init=False, default=0)
    resumed: int = attrs.field(init=False, default=0)

    def resume(self, plan: RunPlan) -> State | None:
        """The latest state whose options taken the plan's forced prefix repeats, or None.

        The checkpoints past it are forgotten; the plan's run takes its own from there on.
        A plan with other fixed parts (another scenario, seed or bound) forgets them all.
        """
        fixed = _fixed_parts(plan)
        if fixed != self._fixed or (plan.scenario is not self._scenario and plan.scenario != self._scenario):
            self._fixed, self._scenario = fixed, plan.scenario
            self._stack = []
            return None
        prefix = plan.prefix
        # Bounded by the stack: every pass pops one checkpoint or returns.
        while self._stack:
            chosen, state = self._stack[-1]
            if len(chosen) <= len(prefix) and tuple(prefix[: len(chosen)]) == chosen:
                self.resumed += 1
                return state
            self._stack.pop()
        return None

    def take(self, chosen: Sequence[int], state: State) -> None:
        """Keep ``state``, which the run reached after taking the options ``chosen``."""
        self._stack.append((tuple(chosen), state))
        self.taken += 1
