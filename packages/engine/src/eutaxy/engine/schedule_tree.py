"""The tree of schedules a check has run: which are new, and when none is left.

Runs are deterministic, so the decisions of every run (each fault decision and turn
pick, with its option count and the index taken) form a tree, as the enumerator's frames
do. Seeded exploration keeps this tree to count distinct schedules beside runs, to skip
a drawn plan it can tell would repeat a schedule already run, to hand the enumerator the
branches no run has taken yet, and to know when every schedule within the bounds has run
(every option of every decision explored).

Telling a plan's schedule before running it follows the plan follower's rule (the
runtime's ``plan.mjs`` and the Python run loop): under the ``seeded`` policy a fault
decision at eligible ordinal ``e`` takes ``1 + draw % (options - 1)`` when the plan holds a
draw for ``e`` and option 0 otherwise; a turn takes ``turns.below(options)`` from the
plan's turn stream. Walking the tree with that rule either reaches a run's end (the plan
repeats a schedule) or an option no run took (the plan is new). A run that offers other
options than the tree holds after the same choices makes the tree ``inconsistent``: it
then never claims that every schedule ran.
"""

from __future__ import annotations

from typing import Iterator, Mapping, Sequence

import attrs

from eutaxy.core.prng import Xoshiro128
from eutaxy.core.protocol import Decision

__all__ = ["ScheduleTree"]


@attrs.define(eq=False)
class _Node:
    """A decision (or, with ``count`` 0, a run's end) after some choices."""

    kind: str = ""
    #: Options offered here; 0 marks the end of a run.
    count: int = 0
    children: dict[int, "_Node"] = attrs.field(factory=dict)


@attrs.define(eq=False)
class ScheduleTree:
    #: Whether injecting a fault is part of the space: False when ``faultProbability`` is 0,
    #: so only option 0 of a fault decision counts and only turn orders are left open.
    fault_choices: bool = True
    root: _Node | None = None
    #: Distinct schedules run (complete paths in the tree).
    schedules: int = 0
    #: A run disagreed with an earlier one after the same choices.
    inconsistent: bool = False
    #: Options of recorded decisions that no run has taken (kept as runs are added).
    open_branches: int = 0

    def add(self, decisions: Sequence[Decision]) -> bool:
        """Record a run's decisions; True when its schedule is new."""
        if self.root is None:
            self.root = _Node()
            self._fill(self.root, decisions)
            self.schedules += 1
            return True
        node = self.root
        for index, decision in enumerate(decisions):
            if node.count == 0 and not node.children:
                self.inconsistent = True  # an earlier run ended here
                return False
            if (node.kind, node.count) != (decision.kind, len(decision.options)):
                self.inconsistent = True
                return False
            child = node.children.get(decision.chosen)
            if child is None:
                child = node.children[decision.chosen] = _Node()
                if decision.chosen < self._choices(node):
                    self.open_branches -= 1
                self._fill(child, decisions[index + 1 :])
                self.schedules += 1
                return True
            node = child
        if node.count != 0:
            self.inconsistent = True
        return False

    def _fill(self, node: _Node, decisions: Sequence[Decision]) -> None:
        for decision in decisions:
            node.kind, node.count = decision.kind, len(decision.options)
            self.open_branches += self._choices(node) - 1
            child = node.children[decision.chosen] = _Node()
            node = child

    def _choices(self, node: _Node) -> int:
        """The options of a decision that belong to the space."""
        return 1 if node.kind == "fault" and not self.fault_choices else node.count

    def repeats(self, faults: Mapping[int, int], turn_words: Sequence[int]) -> bool:
        """Whether a seeded plan (``faults``: eligible ordinal -> kind draw) would rerun a known schedule."""
        node = self.root
        if node is None or self.inconsistent:
            return False
        stream: Xoshiro128 | None = None
        eligible = 0
        # Bounded by the tree's depth: every pass goes one node down or returns.
        while node.count:
            if node.kind == "fault":
                draw = faults.get(eligible)
                eligible += 1
                chosen = 0 if draw is None else 1 + draw % (node.count - 1)
            else:
                if stream is None:
                    stream = Xoshiro128(tuple(turn_words))
                chosen = stream.below(node.count)
            child = node.children.get(chosen)
            if child is None:
                return False
            node = child
        return True

    def _open(self) -> Iterator[list[int]]:
        """The forced prefix of every option no run has taken, depth first, lowest index first."""
        if self.root is None:
            return
        stack: list[tuple[_Node, list[int]]] = [(self.root, [])]
        # Bounded by the tree's nodes: each is pushed once, by its parent.
        while stack:
            node, path = stack.pop()
            for index in range(self._choices(node)):
                if index not in node.children:
                    yield path + [index]
            for index in sorted(node.children, reverse=True):
                stack.append((node.children[index], path + [index]))

    def next_open(self) -> list[int] | None:
        """The forced prefix of the first branch no run has taken, or None when none is left."""
        return next(self._open(), None)

    @property
    def complete(self) -> bool:
        """Every option of every decision explored: every schedule within the bounds ran."""
        return self.root is not None and not self.inconsistent and self.open_branches == 0
