"""The determinism audit (``--audit``): rerun explored schedules and compare their logs.

Every verdict rests on runs repeating exactly: a replay must give the trace it reports,
and a schedule run once stands for every rerun of it. The module-state check reruns the
first runs in reverse; the audit goes further and reruns a sample of the exploration's
runs, each with its plan unchanged, comparing the effect logs byte for byte (canonical
JSON). Any difference makes the verdict UNSUPPORTED with cause ``nondeterministic``,
naming the run and the first differing effect. The sample is every run when there are
at most ``AUDIT_RUNS_MAX``, else that many spread evenly over the exploration (the first
and the last included), so the same check audits the same runs.
"""

from __future__ import annotations

from typing import Any

from eutaxy.core.canonical import to_json
from eutaxy.core.verdicts import NONDETERMINISTIC

from eutaxy.engine.module_state import first_difference
from eutaxy.engine.outcomes import Stopped
from eutaxy.engine.session import Session

__all__ = ["AUDIT_RUNS_MAX", "audit_sample", "run_audit"]

#: Runs the audit reruns at most: each costs one run, so this bounds the audit at about a
#: tenth of a default seeded exploration while covering a small one whole.
AUDIT_RUNS_MAX = 64


def audit_sample(runs: int, most: int = AUDIT_RUNS_MAX) -> list[int]:
    """The exploration run indices the audit reruns: all of them, or ``most`` spread evenly."""
    if runs <= most:
        return list(range(runs))
    assert most >= 2, most
    return sorted({round(index * (runs - 1) / (most - 1)) for index in range(most)})


def run_audit(session: Session) -> tuple[dict[str, Any], Stopped | None]:
    """Rerun the sample; the verdict's ``audit`` data, and the UNSUPPORTED outcome on a difference."""
    records = session.audit_records
    assert records is not None, "the session keeps its runs only when an audit was asked"
    sample = audit_sample(len(records))
    for count, index in enumerate(sample, 1):
        original = records[index]
        again = session.perform(original.plan)
        same = to_json(list(original.result.effects)) == to_json(list(again.result.effects))
        if same and again.result.end == original.result.end:
            continue
        detail = (
            f"run {index + 1} of the check, rerun with the same plan, recorded a different effect log "
            f"({first_difference(original.result.effects, again.result.effects)}); something the run "
            "depends on is not controlled (a real clock, real randomness, I/O outside the effects)"
        )
        return {"reran": count, "runs": len(records), "differences": 1}, Stopped(cause=NONDETERMINISTIC, detail=detail)
    return {"reran": len(sample), "runs": len(records), "differences": 0}, None
