"""The Core decisions a check saw: every distinct call into a spec module, and where it was first made.

A platform records each call into a scenario's ``specs`` modules as a decision effect
(target ``Core:<function>``, op ``decide``, kind ``decision``, payload ``{args, result}``).
These are the inputs the spec ladder's CHECKED rung evaluates a property on, so the
verdict lists them once each: a call is its function, its arguments and its result
(compared as canonical JSON), with the exploration run, invocation and ordinal where it
was first seen.

The payload's ``args`` and ``result`` are the log's canonical (JSON) reading, which loses
-0, NaN, the infinities, undefined and bigints. A runtime that can say more records the
exact reading beside them in the spec ladder's value encoding (``eutaxy.spec.values``):
``argsExact`` and ``resultExact`` where they differ from the canonical ones, and
``argsInexact`` (why) when the arguments hold a value that encoding cannot carry. A call
keeps those fields, and calls are told apart by their exact readings where present, so
``f(-0)`` and ``f(0)`` are two calls. Only exploration runs are collected (replays, shrinking and the
module-state check repeat runs already seen). The order is by function name, then by
first sighting (run, then position in the log), so equal checks list equal calls.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import attrs

from eutaxy.core.canonical import to_json

__all__ = ["CORE_PREFIX", "EXACT_FIELDS", "CoreCalls", "lists_specs"]

#: The target prefix of a Core decision effect.
CORE_PREFIX = "Core:"

#: Payload fields beside ``args``/``result`` that a call keeps: the exact readings, and why there is none.
EXACT_FIELDS = ("argsExact", "resultExact", "argsInexact")


def lists_specs(scenario: Mapping[str, Any]) -> bool:
    """Whether the scenario names spec modules (only then does a verdict carry ``coreCalls``)."""
    return bool(scenario.get("specs"))


@attrs.define(eq=False)
class CoreCalls:
    """Distinct Core decision calls, collected run by run."""

    _seen: dict[tuple[str, str, str, str], dict] = attrs.field(init=False, factory=dict)
    _order: dict[tuple[str, str, str, str], tuple[int, int]] = attrs.field(init=False, factory=dict)

    def observe(self, run: int, effects: Iterable[Mapping[str, Any]]) -> None:
        """Note the decisions of exploration run ``run`` (0-based) that were not seen before."""
        for position, effect in enumerate(effects):
            target = effect.get("target")
            if effect.get("kind") != "decision" or not isinstance(target, str) or not target.startswith(CORE_PREFIX):
                continue
            payload = effect.get("payload")
            if not isinstance(payload, Mapping):
                continue
            function = target[len(CORE_PREFIX):]
            args = payload.get("args")
            result = payload.get("result")
            exact = {name: payload[name] for name in EXACT_FIELDS if name in payload}
            identity = (function,
                        to_json(exact["argsExact"] if "argsExact" in exact else args),
                        to_json(exact["resultExact"] if "resultExact" in exact else result),
                        to_json(exact.get("argsInexact")))
            if identity in self._seen:
                continue
            self._seen[identity] = {
                "function": function,
                "args": args,
                "result": result,
                **exact,
                "firstSeen": {"run": run, "invocation": effect.get("invocation"), "ordinal": effect.get("ordinal")},
            }
            self._order[identity] = (run, position)

    def __len__(self) -> int:
        return len(self._seen)

    def to_data(self) -> list[dict]:
        """The calls by function name, then first sighting."""
        ordered = sorted(self._seen, key=lambda identity: (identity[0], self._order[identity]))
        return [dict(self._seen[identity], firstSeen=dict(self._seen[identity]["firstSeen"])) for identity in ordered]
