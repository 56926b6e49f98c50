"""Fault coverage: which fault kinds each effect point allows, and which were injected.

BOUNDED says "no invariant broke in these runs"; coverage says what those runs tried. An
effect point is a target, an op and the effect's position in its invocation (its
ordinal), gathered over every invocation and every exploration run: the first D1 ``run``
of a delivery is one point whatever the message. Its kinds are those its fault decisions
offered (the ladder allowed), and a (point, kind) pair is exercised once an exploration
run injected that kind there. The verdict lists every point and the share of pairs
exercised; a pair never exercised within the budget is named.
"""

from __future__ import annotations


import attrs

from eutaxy.core.protocol import RunResult
from eutaxy.core.verdicts import Coverage, CoverageMiss, CoveragePoint

__all__ = ["FaultCoverage"]

_Point = tuple[str, str, int]


@attrs.define(eq=False)
class FaultCoverage:
    #: Per point, the kinds its decisions offered, in ladder order.
    allowed: dict[_Point, list[str]] = attrs.field(factory=dict)
    #: Per point, the kinds injected at least once.
    injected: dict[_Point, set[str]] = attrs.field(factory=dict)

    def observe(self, result: RunResult) -> None:
        """Add one exploration run's fault decisions."""
        ops = None
        for decision in result.decisions:
            if decision.kind != "fault":
                continue
            if ops is None:
                ops = {(e.get("invocation"), e.get("ordinal")): e.get("op") for e in result.effects if e.get("kind") == "call"}
            op = ops.get((decision.invocation, decision.ordinal)) or "?"
            point = (str(decision.target), str(op), int(decision.ordinal or 0))
            kinds = self.allowed.setdefault(point, [])
            for kind in decision.options[1:]:
                if kind not in kinds:
                    kinds.append(kind)
            if decision.chosen != 0:
                self.injected.setdefault(point, set()).add(decision.choice)

    def verdict_part(self) -> Coverage:
        """The verdict's ``coverage``: each point's kinds and those injected, the pairs never injected."""
        points = []
        missed = []
        pairs = exercised = 0
        for point in sorted(self.allowed):
            target, op, ordinal = point
            kinds = self.allowed[point]
            done = self.injected.get(point, set())
            injected = tuple(kind for kind in kinds if kind in done)
            points.append(CoveragePoint(target=target, op=op, ordinal=ordinal, kinds=tuple(kinds), injected=injected))
            pairs += len(kinds)
            exercised += len(injected)
            missed += [CoverageMiss(target=target, op=op, ordinal=ordinal, fault=kind) for kind in kinds if kind not in done]
        return Coverage(points=tuple(points), pairs=pairs, exercised=exercised, missed=tuple(missed))
