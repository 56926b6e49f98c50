"""``refines``: the Worker does what its pure core decided, on state that was still true.

For every selected effect, in log order:

1. its decision is the latest ``Core:<decision>`` decision effect of the same invocation
   before it in the log; an effect with none is a violation, so forgetting to list the
   core module in ``specs`` never passes quietly;
2. each ``follows`` pair ``{effect: path, decision: path}`` agrees under canonical JSON (a
   path that resolves on neither side or on one side only is a disagreement);
3. with ``state = {read, write, key}``: the invocation made a read (an effect the read
   selector picks, with the effect's value at ``key``) before the decision, and no other
   invocation's write (picked by the write selector, same value at ``key``) comes after
   that read and before the effect. The latest such read counts: a later read saw the
   writes before it. This is the lost update, where every decision is right for the state
   it saw.

The violation's keys are the canonical state keys of the failing effects when ``state``
is given (and the effect has one), else their invocation ids as canonical JSON.
"""

from __future__ import annotations

from typing import Any, Sequence

from eutaxy.core.canonical import to_json
from eutaxy.core.effects import DECISION, Effect
from eutaxy.core.selectors import MISSING, get_path, matches, select
from eutaxy.core.violations import Violation, count_word, violation_of

__all__ = ["check_refines", "decision_target"]


def decision_target(decision: str) -> str:
    """``decideRefund`` is recorded under ``Core:decideRefund``."""
    return decision if decision.startswith("Core:") else "Core:" + decision


def _latest_decision(effects: Sequence[Effect], before: int, invocation: str, target: str) -> int | None:
    for index in range(before - 1, -1, -1):
        effect = effects[index]
        if effect.kind == DECISION and effect.target == target and effect.invocation == invocation:
            return index
    return None


def _key_equals(effect: Effect, key: str, text: str) -> bool:
    value = get_path(effect.payload, key)
    return value is not MISSING and to_json(value) == text


def _latest_read(effects: Sequence[Effect], before: int, invocation: str, state: dict[str, Any], text: str) -> int | None:
    for index in range(before - 1, -1, -1):
        effect = effects[index]
        if effect.invocation == invocation and matches(state["read"], effect) and _key_equals(effect, state["key"], text):
            return index
    return None


def _stale_write(
    effects: Sequence[Effect], after: int, before: int, invocation: str, state: dict[str, Any], text: str
) -> int | None:
    for index in range(after + 1, before):
        effect = effects[index]
        if effect.invocation != invocation and matches(state["write"], effect) and _key_equals(effect, state["key"], text):
            return index
    return None


def _problem(invariant: dict[str, Any], effects: Sequence[Effect], index: int) -> tuple[str, list[int], str] | None:
    """Why the effect at ``index`` does not refine its decision: (key, involved, sentence)."""
    effect = effects[index]
    name = invariant["decision"]
    state = invariant.get("state")
    state_value = get_path(effect.payload, state["key"]) if state else MISSING
    key = to_json(state_value) if state_value is not MISSING else to_json(effect.invocation)
    what = f"{effect.target} {effect.op} ({effect.describe()})"
    decision_index = _latest_decision(effects, index, effect.invocation, decision_target(name))
    if decision_index is None:
        return key, [index], (
            f"{what} carries out no {name} decision of its invocation "
            f"(is the module that defines {name} listed in the scenario's specs?)"
        )
    decision = effects[decision_index]
    for pair in invariant.get("follows") or []:
        effect_value = get_path(effect.payload, pair["effect"])
        decision_value = get_path(decision.payload, pair["decision"])
        if effect_value is MISSING or decision_value is MISSING or to_json(effect_value) != to_json(decision_value):
            shown_effect = "nothing" if effect_value is MISSING else to_json(effect_value)
            shown_decision = "nothing" if decision_value is MISSING else to_json(decision_value)
            return key, [decision_index, index], (
                f"{what} has {shown_effect} at {pair['effect']} but its {name} decision "
                f"(effect #{decision.ordinal}) has {shown_decision} at {pair['decision']}"
            )
    if not state:
        return None
    if state_value is MISSING:
        return key, [decision_index, index], f"{what} has no value at the state key {state['key']}"
    read_index = _latest_read(effects, decision_index, effect.invocation, state, key)
    if read_index is None:
        return key, [decision_index, index], (
            f"{what} carries out a {name} decision that rested on no read of {key} by {effect.invocation}"
        )
    write_index = _stale_write(effects, read_index, index, effect.invocation, state, key)
    if write_index is None:
        return None
    write = effects[write_index]
    return key, [read_index, decision_index, write_index, index], (
        f"{what} carries out a {name} decision that rested on a read of {key} "
        f"({effects[read_index].describe()}), and {write.describe()} changed {key} "
        f"before that effect committed (a lost update)"
    )


def check_refines(invariant: dict[str, Any], effects: Sequence[Effect]) -> Violation | None:
    problems = []
    for index in select(invariant["selector"], effects):
        problem = _problem(invariant, effects, index)
        if problem is not None:
            problems.append(problem)
    if not problems:
        return None
    keys: list[str] = []
    involved: set[int] = set()
    for key, indices, _ in problems:
        if key not in keys:
            keys.append(key)
        involved.update(indices)
    message = f"{invariant['name']}: {problems[0][2]}"
    if len(problems) > 1:
        message += f" ({count_word(len(problems) - 1)} more effects do not refine their decisions)"
    return violation_of(invariant, message, keys=keys, effects=sorted(involved))
