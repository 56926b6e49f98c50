"""A toy binding kind, the counter service: everything Python knows about it, in one record.

It exists to prove that a binding kind is two record files (this one and counter.mjs beside
it) and one registration: nothing under packages/cloudflare/src or runtime/ names it. A
Worker declares counters in a ``counters`` section (``{"binding": "COUNTER", "service":
"tally"}``) and calls ``env.COUNTER.increment(key)`` and ``env.COUNTER.get(key)``; the
runtime record models the service whole (no Miniflare binding behind it). A counter no
``counter_service`` step sets is UNSUPPORTED when touched, since nothing would reset it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import attrs

from eutaxy.cloudflare.bindings import BindingKind, DraftContext, KindNames, SetupStep, effect_selector
from eutaxy.core.errors import UserError
from eutaxy.core.faults import READ_FAULTS, WRITE_FAULTS
from eutaxy.core.selectors import rows

if TYPE_CHECKING:
    from eutaxy.cloudflare.wrangler import WranglerConfig

__all__ = ["COUNTER", "CounterKind", "counter_op", "counter_rows", "counter_service"]


def counter_service(binding: str, counts: Mapping[str, int] | None = None) -> dict[str, Any]:
    """Set counter service ``binding`` to ``counts`` (key -> a whole number) before each run."""
    return {"kind": "counter_service", "binding": binding, "counts": dict(counts or {})}


def counter_op(binding: str, op: str | list[str] | None = None) -> dict[str, Any]:
    """The counter's operations that completed (``increment``, ``get``)."""
    return effect_selector(f"Counter:{binding}", op)


def counter_rows(binding: str, where: Iterable[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A counter service's counts at the end of a run: rows ``{key, count}``."""
    return rows(f"Counter:{binding}", "counts", where)


@attrs.frozen(kw_only=True)
class CounterKind(BindingKind):
    """The counter service: increments are writes, reads are reads, each one effect."""

    def check_step(self, step: Mapping[str, Any], where: str) -> dict[str, Any]:
        counts = step.get("counts")
        if not isinstance(counts, Mapping) or not all(
            isinstance(key, str) and isinstance(count, int) and not isinstance(count, bool) for key, count in counts.items()
        ):
            raise UserError(f"{where}: counts must map keys to whole numbers, got {counts!r}")
        return {"kind": self.setup_step, "binding": step["binding"], "counts": dict(counts)}

    def policy(self) -> dict[str, Any]:
        return {"ladders": {"increment": list(WRITE_FAULTS), "get": list(READ_FAULTS)}}

    def assumptions(self, config: "WranglerConfig", steps: Sequence[Mapping[str, Any]]) -> list[str]:
        bindings = list(self.resources(config))
        return [f"Counter services ({', '.join(bindings)}) are a toy kind: each increment and get is one effect."]

    def draft_invariants(self, binding: str, draft: DraftContext) -> list[str]:
        return [f'at_most_once_per_key("one-increment-per-key", counter_op({json.dumps(binding)}, "increment"), "args.key"),']


COUNTER = CounterKind(
    name="counter",
    names=KindNames(label="Counter", plural="counter services", noun="counter service"),
    section="counters",
    resource_field="service",
    section_note="The toy counter service (a test's binding kind).",
    setup=SetupStep("counter_service", without="unsupported", gives="the counts"),
    selectors=("counter_op", "counter_rows"),
    runtime_module=str(Path(__file__).resolve().with_name("counter.mjs")),
)
