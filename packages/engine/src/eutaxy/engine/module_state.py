"""The module-state check: state kept between runs would make BOUNDED a false claim.

Module caches are reused between runs and no platform can reset module-level state, so
before a check reports BOUNDED it reruns its first runs, with their plans unchanged, in
reverse order and compares each log with the original. Runs are deterministic, so a
difference means something outlived a run (a module-level counter, a cache, a captured
clock): the verdict becomes UNSUPPORTED with cause ``module_state_leak``. Reversing the
order is what exposes it: the first run, rerun last, now runs after all the others.
"""

from __future__ import annotations

from eutaxy.core.canonical import to_json

from eutaxy.engine.bounds import MODULE_STATE_RUNS_DEFAULT
from eutaxy.engine.outcomes import Stopped
from eutaxy.engine.session import Session

__all__ = ["MODULE_STATE_RUNS_DEFAULT", "check_module_state", "first_difference"]

# MODULE_STATE_RUNS_DEFAULT (eutaxy.engine.bounds, with its source) is re-exported here.


def check_module_state(session: Session, runs: int) -> Stopped | None:
    """Rerun the first ``runs`` exploration runs in reverse; a changed log is a leak."""
    originals = session.first_records[:runs]
    for index in reversed(range(len(originals))):
        original = originals[index]
        again = session.perform(original.plan)
        before = to_json(list(original.result.effects))
        after = to_json(list(again.result.effects))
        if before != after or again.result.end != original.result.end:
            return Stopped(
                cause="module_state_leak",
                detail=(
                    f"run {index + 1} of the check, rerun after the runs that followed it, "
                    f"recorded a different effect log ({first_difference(original.result.effects, again.result.effects)}); "
                    "state outlived a run (module-level variables, caches, a captured clock)"
                ),
            )
    return None


#: Longest effect text quoted in a leak's detail; the trace is not part of the verdict.
_QUOTE_CHARS = 240


def _quote(effect) -> str:
    text = to_json(effect)
    return text if len(text) <= _QUOTE_CHARS else text[: _QUOTE_CHARS - 1] + "…"


def first_difference(before, after) -> str:
    for index, (old, new) in enumerate(zip(before, after)):
        if to_json(old) != to_json(new):
            return f"first at effect {index}: {_quote(old)} then {_quote(new)}"
    return f"{len(before)} effects then {len(after)}"
