"""The concurrent fixture's scenario, as the workerd tests of concurrency build it.

``runtime/fixtures/concurrent`` is a queue consumer that reads and writes a total in one
of two D1 databases (A or B) after asking the spec module's ``decideTotal``; its one
invariant is that the total written follows that decision.
"""

from pathlib import Path
from typing import Any, Iterable, Sequence

from eutaxy.cloudflare import d1_param, d1_read, d1_schema, d1_write, define_scenario, queue, refines

FIXTURE = Path(__file__).resolve().parents[1] / "runtime" / "fixtures" / "concurrent"


def concurrent_scenario(
    name: str, bodies: Iterable[dict], *, concurrency: int, specs: Sequence[str] = ("./domain.ts",), **fields: Any
) -> dict:
    """One message per body on the ``jobs`` queue, no faults, ``concurrency`` invocations at a time."""
    return define_scenario(
        name=name,
        root=FIXTURE,
        source=FIXTURE / f"{name}.sim.py",
        setup=[d1_schema("A", "./schema.sql"), d1_schema("B", "./schema.sql")],
        drive=queue("jobs", [{"body": body} for body in bodies], batch_size=1),  # an invocation per message
        specs=list(specs),
        invariants=[
            refines(
                "total-follows-decision",
                "decideTotal",
                d1_write("A"),
                follows=[{"effect": d1_param(1), "decision": "result.total"}],
                state={"read": d1_read("A"), "write": d1_write("A"), "key": d1_param(0)},
            )
        ],
        bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0, "maxConcurrentInvocations": concurrency, "budgetMs": 5000},
        **fields,
    )
