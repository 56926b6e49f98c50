"""Exhaustive exploration: every schedule within the bounds, each once, depth first.

A run is a sequence of decisions, and runs are deterministic, so the schedules form a
tree. The enumerator keeps the path of the last run as a stack of frames (one per
decision: its options, the index taken, the indices already explored and, for the
reduction, its sleep set), reruns from the reset with an ever longer forced prefix
(policy ``first`` after it), and backtracks to the deepest frame with an option left.

Every rerun must repeat the path it was forced along: the same options at every
decision of the prefix and the index forced. A run that chooses differently after the
same prefix makes the verdict UNSUPPORTED (``not_replayable``).

Partial-order reduction (sleep sets, Godefroid 1996). Two turns commute when both are
effects of different invocations on different targets, and not both run one Durable
Object's code: a turn runs an object's code when its effect is a call into an object (a
stub call, ``DO:<binding>``; a WebSocket message delivered to one, ``WebSocket:<connection>``;
which object the option does not say) or when it was parked inside a call of the object
(its option names it, ``object``: taking it goes on running that call), and such turns
share the object's storage, which is no effect. After a frame has explored a
turn ``t``, ``t`` sleeps in the subtrees of the frame's later options for as long as
only turns independent of it are taken; a sleeping turn is never taken again. Starting
an event, firing a due timer and letting time pass depend on everything, so they never
sleep and nothing sleeps across them; fault decisions pass sleep sets through unchanged
(every fault option is explored). The runtime takes option 0 past the prefix, so a run
may take a sleeping turn: the enumerator then cuts the path there (the run is a probe,
not a schedule) and goes on from the next option of that frame.

A turn that did more than its effect (``more``: another effect, another invocation's
code, reading the clock or randomness, setting a timer) depends on every turn, as a start
does: where it is taken nothing sleeps below it, and once explored it never sleeps. Its
independence is known only after it ran, and a frame records it for every turn taken
there (``_Frame.more``), so the reduction stays on; docs/engine.md argues why this is sound.
"""

from __future__ import annotations

from typing import Any

import attrs

from eutaxy.core.canonical import to_json
from eutaxy.core.protocol import Decision, RunPlan
from eutaxy.core.verdicts import NOT_REPLAYABLE

from eutaxy.engine.explore import explore
from eutaxy.engine.outcomes import Outcome, Stopped
from eutaxy.engine.plans import first_plan
from eutaxy.engine.session import RunRecord, Session

__all__ = ["Enumeration", "explore_exhaustive", "independent"]

#: Turn kinds that depend on everything: they are never reordered and never sleep.
_GLOBAL_TURNS = frozenset({"start", "timer", "time"})


def _option_key(option: Any) -> Any:
    """A hashable stand-in for an option's plain data, to hold turns in sleep sets.

    Cheaper than canonical text, which the enumerator would otherwise compute for every
    option of every decision of every run; options are flat dicts of strings, and nested
    values fall back to a recursive form.
    """
    if isinstance(option, dict):
        try:
            return frozenset(option.items())
        except TypeError:
            return ("{", tuple(sorted((key, _option_key(value)) for key, value in option.items())))
    if isinstance(option, list):
        return ("[", tuple(_option_key(value) for value in option))
    return option


#: Targets whose effect is a call into a Durable Object: it runs the object's code.
_OBJECT_CALL_TARGETS = ("DO:", "WebSocket:")

#: Stands for "some object" where an option does not say which.
_ANY_OBJECT = object()


def _object_run(option: dict[str, Any]) -> Any:
    """The Durable Object whose code taking the turn runs: its name, _ANY_OBJECT, or None."""
    named = option.get("object")
    if named is not None:
        return named
    target = option.get("target")
    if isinstance(target, str) and target.startswith(_OBJECT_CALL_TARGETS):
        return _ANY_OBJECT
    return None


def independent(first: Any, second: Any) -> bool:
    """Whether two turn options commute: effects of different invocations on different
    targets that do not both run one Durable Object's code."""
    if not isinstance(first, dict) or not isinstance(second, dict):
        return False
    if first.get("kind") != "effect" or second.get("kind") != "effect":
        return False
    if first.get("invocation") == second.get("invocation"):
        return False
    if first.get("target") == second.get("target"):
        return False
    one, other = _object_run(first), _object_run(second)
    if one is None or other is None:
        return True
    return one is not _ANY_OBJECT and other is not _ANY_OBJECT and one != other


def _did_more(decision: Decision) -> bool:
    """A turn other than a start (or a timer, or time passing) that did more than its effect."""
    if decision.kind != "turn" or not decision.more:
        return False
    choice = decision.choice
    return not (isinstance(choice, dict) and choice.get("kind") in _GLOBAL_TURNS)


@attrs.define(eq=False)
class _Frame:
    """One decision on the current path."""

    kind: str
    options: tuple[Any, ...]
    chosen: int
    #: Option indices explored (or skipped as asleep) before the current one.
    done: set[int] = attrs.field(factory=set)
    #: Sleeping turns at this decision: option key -> option.
    sleep: dict[Any, Any] = attrs.field(factory=dict)
    #: Option indices taken here whose turn did more than its effect (they depend on every turn).
    more: set[int] = attrs.field(factory=set)

    def child_sleep(self, reduction: bool) -> dict[Any, Any]:
        """The sleep set below the current option."""
        if not reduction:
            return {}
        if self.kind == "fault":
            return dict(self.sleep)
        if self.chosen in self.more:
            return {}
        taken = self.options[self.chosen]
        candidates = dict(self.sleep)
        for index in self.done - self.more:
            option = self.options[index]
            candidates[_option_key(option)] = option
        return {key: option for key, option in candidates.items() if independent(option, taken)}

    def next_option(self, reduction: bool) -> int | None:
        """The lowest option not yet explored and not asleep."""
        for index in range(len(self.options)):
            if index == self.chosen or index in self.done:
                continue
            if reduction and self.kind == "turn" and _option_key(self.options[index]) in self.sleep:
                self.done.add(index)
                continue
            return index
        return None


def _frame_of(decision: Decision, sleep: dict[Any, Any]) -> _Frame:
    return _Frame(
        kind=decision.kind,
        options=decision.options,
        chosen=decision.chosen,
        sleep=sleep,
    )


@attrs.define(eq=False)
class Enumeration:
    """The enumerator as a strategy of the exploration loop (``explore.Strategy``): its
    state is the current path, the counts, and whether the reduction is on.

    What to run next: the current forced prefix. What a run teaches: the frames past the
    prefix (a run that left its prefix stops exploration, ``not_replayable``), and which
    turns it took did more than their effect.
    Done: no frame has an option left, which covers every schedule within the bounds.
    """

    session: Session
    reduction: bool = True
    stack: list[_Frame] = attrs.field(factory=list)
    #: Complete schedules run (probes cut short by a sleeping turn are not schedules).
    schedules: int = 0
    completed: bool = False
    covers: bool = attrs.field(init=False, default=True)
    #: The prefix the next run is forced along.
    prefix: list[int] = attrs.field(init=False, factory=list)
    #: A run was observed since the prefix was last advanced.
    _observed: bool = attrs.field(init=False, default=False)

    def report(self) -> dict[str, Any]:
        return {"completed": self.completed, "schedules": self.schedules, "reduction": self.reduction}

    def _diverged(self, prefix: list[int], decisions: tuple[Decision, ...]) -> str | None:
        """Why a run did not follow its forced prefix and policy, if it did not."""
        if len(decisions) < len(prefix):
            return f"after the forced prefix {prefix} the run made only {len(decisions)} decisions"
        for index, frame in enumerate(self.stack[: len(prefix)]):
            decision = decisions[index]
            if decision.kind != frame.kind or decision.options != frame.options:
                return (
                    f"decision {index} offered {to_json(list(decision.options))} where the same prefix "
                    f"offered {to_json(list(frame.options))}"
                )
            if decision.chosen != prefix[index]:
                return f"decision {index} took option {decision.chosen} where the plan forced {prefix[index]}"
        for index in range(len(prefix), len(decisions)):
            if decisions[index].chosen != 0:
                return f"decision {index} took option {decisions[index].chosen} past the prefix, not option 0"
        return None

    def _extend(self, prefix: list[int], decisions: tuple[Decision, ...]) -> bool:
        """Push frames for the decisions past the prefix; False if the run took a sleeping turn.

        Each frame on the path notes whether the turn the run took there did more than its
        effect (the prefix's frames too: their taken option may be new), before the sleep set
        below it is worked out.
        """
        for frame, decision in zip(self.stack[: len(prefix)], decisions, strict=False):
            if _did_more(decision):
                frame.more.add(decision.chosen)
        for index in range(len(prefix), len(decisions)):
            parent = self.stack[-1] if self.stack else None
            sleep = parent.child_sleep(self.reduction) if parent is not None else {}
            frame = _frame_of(decisions[index], sleep)
            self.stack.append(frame)
            if self.reduction and frame.kind == "turn" and _option_key(frame.options[0]) in sleep:
                return False
            if _did_more(decisions[index]):
                frame.more.add(frame.chosen)
        return True

    def _backtrack(self) -> list[int] | None:
        """The next prefix to force, or None once every schedule has run."""
        # Bounded by the path's length: every pass returns or pops a frame.
        for _ in range(len(self.stack)):
            top = self.stack[-1]
            following = top.next_option(self.reduction)
            if following is not None:
                top.done.add(top.chosen)
                top.chosen = following
                return [frame.chosen for frame in self.stack]
            self.stack.pop()
        return None

    def finished(self) -> bool:
        """Advance past the last run (start again, or backtrack); True once no schedule is left."""
        if not self._observed:
            return False
        self._observed = False
        following = self._backtrack()
        if following is None:
            self.completed = True
            return True
        self.prefix = following
        return False

    def next_plan(self) -> RunPlan:
        session = self.session
        return first_plan(
            dict(session.scenario),
            session.seed,
            self.prefix,
            session.bounds.max_faults_per_run,
            max_short_batches=session.bounds.max_short_batches,
        )

    def observe(self, record: RunRecord) -> Stopped | None:
        decisions = record.result.decisions
        divergence = self._diverged(self.prefix, decisions)
        if divergence is not None:
            return Stopped(cause=NOT_REPLAYABLE, detail=divergence, exhaustive=self.report())
        if self._extend(self.prefix, decisions):
            self.schedules += 1
            self.session.schedules = self.schedules
        self._observed = True
        return None


def explore_exhaustive(session: Session, *, reduction: bool = True) -> Outcome:
    """Enumerate every schedule within the session's bounds (see the module docstring)."""
    return explore(session, Enumeration(session=session, reduction=reduction))
