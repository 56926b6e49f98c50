"""The bounds of one check, read once from the scenario and the caller's overrides.

A verdict states the bounds it was reached within, so they are resolved in one place,
with their defaults written out, and reported as plain data.
"""

from __future__ import annotations

from typing import Any, Mapping

import attrs

from eutaxy.core.errors import UserError

__all__ = [
    "AFTER_WORK_TIMER_LIMIT_DEFAULT",
    "BOUND_NAMES",
    "BUDGET_MS_MAX",
    "EFFECT_HANG_MS_DEFAULT",
    "MAX_SHORT_BATCHES_DEFAULT",
    "MODULE_STATE_RUNS_DEFAULT",
    "PRODUCED_MESSAGES_MAX_DEFAULT",
    "RUNS_MAX",
    "Bounds",
    "check_bound_values",
    "resolve_bounds",
    "with_bounds",
]

# The engine's defaults, each with its source. These (and the binding records' own) are the
# only defaults there are: with_bounds writes them into every plan, and a runtime or a
# follower that finds a bound or a plan field missing fails as an internal error naming it.

#: Defaults for bounds a scenario leaves out. maxFaultsPerRun, maxConcurrentInvocations and budgetMs
#: are the bounds of the seeds' example scenario spec ("Spec language, invariants and refines":
#: ``bounds: { maxFaultsPerRun: 1, maxRedeliveries: 2, maxConcurrentInvocations: 1, budgetMs: 2000 }``);
#: its maxRedeliveries is that scenario's own bound, not a default (issue 27: a default below a
#: platform's limit would cut what the platform does).
MAX_FAULTS_PER_RUN_DEFAULT = 1
#: None: no scenario bound on redeliveries; each queue, alarm and caller redelivers up to its
#: platform's own limit (a consumer's max_retries, SQS maxReceiveCount - 1, the alarm retry
#: limit 6, the caller's retries). A scenario's maxRedeliveries below that is a cut
#: (``eutaxy.core.cuts``), which the verdict states.
MAX_REDELIVERIES_DEFAULT: int | None = None
MAX_CONCURRENT_INVOCATIONS_DEFAULT = 1
#: Queue deliveries per run that may take fewer of the waiting messages than the platform
#: would (a short batch: ``k`` of the ``n`` messages a delivery would take, ``1 <= k < n``).
#: Cloudflare's consumer and Lambda's SQS event source deliver whatever is waiting up to the
#: batch size once their batching window ends (Cloudflare: "max_batch_size" / "max_batch_timeout";
#: Lambda: "BatchSize" / "MaximumBatchingWindowInSeconds"); a shorter batch happens when the
#: window ends first, which depends on timing the model does not draw. 0 keeps every delivery
#: at the platform's batch, as checks ran before this bound existed, so every existing verdict
#: and schedule stays the same; a scenario that suspects grouping bugs sets 1 or 2.
MAX_SHORT_BATCHES_DEFAULT = 0
#: Two seconds of exploration: long enough to reach a few hundred runs of a small Worker.
BUDGET_MS_DEFAULT = 2000
#: Nine later runs in ten inject faults; the tenth keeps measuring the fault-free path (the
#: seeds on seeded exploration: "faultProbability is the share of those later runs that
#: inject faults (default 0.9)").
FAULT_PROBABILITY_DEFAULT = 0.9
#: Runs the module-state check reruns in reverse before BOUNDED: two cost two extra runs and
#: catch state the first run left for the second, the common leak (the seeds' "Running inside workerd"
#: 3: "The pass costs two extra runs by default"); ``module_state_runs`` sizes it, 0 disables it.
MODULE_STATE_RUNS_DEFAULT = 2
#: Messages a run's handlers may produce (a Worker's queue send, an SQS SendMessage): each one
#: onto a queue the handler consumes is another delivery, so a handler that produces on every
#: delivery would never end. A run that produces more is UNSUPPORTED (produced_message_limit).
PRODUCED_MESSAGES_MAX_DEFAULT = 100
#: Real time one effect's I/O, or a handler's own code between two effect points, may take
#: before a runtime counts it hung (the run is then UNSUPPORTED, effect_hung or cpu_bound).
#: Ten seconds: far beyond any effect of a local runtime or a handler step that ends, short
#: enough that a loop that never ends costs a check little. It is its own bound, never the
#: exploration budget, so a verdict does not change with ``--budget-ms``.
EFFECT_HANG_MS_DEFAULT = 10_000
#: Timer firings a Durable Object's work after its answer may take without settling (counted
#: from the last time it was at rest), after which the run records an ``afterWorkTimerLimit``
#: cut (``eutaxy.core.cuts``). The seeds' Durable Objects bullets give it ("afterWorkTimerLimit",
#: default 100): work that never settles (a heartbeat interval) would run until the object is
#: evicted, which a run never reaches; a hundred firings is far beyond any work that does settle.
#: A platform bound: the Cloudflare scenario helper writes it beside alarmsPerObject.
AFTER_WORK_TIMER_LIMIT_DEFAULT = 100
#: The longest budget: runtimes arm real timers of budgetMs (an effect slower than that is
#: hung), and a JavaScript timer longer than 2**31 - 1 ms (24.8 days) fires at once.
BUDGET_MS_MAX = 2**31 - 1
#: The most runs a check may be asked for: more than any budget leaves time for (24.8 days
#: at a thousand runs a second is about 2**31).
RUNS_MAX = 2**31 - 1


#: The bounds the engine reads, by their JSON (camelCase) names. A platform may add its own.
BOUND_NAMES = (
    "maxFaultsPerRun",
    "maxRedeliveries",
    "maxConcurrentInvocations",
    "budgetMs",
    "faultProbability",
    "maxRuns",
    "producedMessagesMax",
    "effectHangMs",
    "maxShortBatches",
)

#: The bounds with an upper limit (runtimes arm real timers of effectHangMs, as of budgetMs).
_MAXIMA = {"budgetMs": BUDGET_MS_MAX, "maxRuns": RUNS_MAX, "effectHangMs": BUDGET_MS_MAX}

def check_bound_values(bounds: Mapping[str, Any]) -> dict[str, Any]:
    """A scenario's bounds, already named in camelCase, each checked for its type and range.

    The names (snake_case, unknown, given twice) are the scenario layer's to check
    (``eutaxy.engine.scenario.scenario_bounds``); this is what a value may be.
    """
    result: dict[str, Any] = {}
    for name, value in bounds.items():
        if name == "faultProbability":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise UserError(f"define_scenario: faultProbability must be a number from 0 to 1, got {value!r}")
        elif isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise UserError(f"define_scenario: {name} must be a non-negative integer, got {value!r}")
        elif value > _MAXIMA.get(name, value):
            raise UserError(f"define_scenario: {name} must be at most {_MAXIMA[name]}, got {value!r}")
        result[name] = value
    for name in ("maxConcurrentInvocations", "effectHangMs"):
        if result.get(name) == 0:
            raise UserError(f"define_scenario: {name} must be at least 1")
    return result


@attrs.frozen(kw_only=True)
class Bounds:
    max_faults_per_run: int
    #: None: the platform's limit per queue (MAX_REDELIVERIES_DEFAULT).
    max_redeliveries: int | None
    max_concurrent_invocations: int
    budget_ms: int
    fault_probability: float
    #: None: no cap on runs (the budget stops exploration).
    max_runs: int | None
    #: The most messages one run's handlers may produce (PRODUCED_MESSAGES_MAX_DEFAULT).
    produced_messages_max: int = PRODUCED_MESSAGES_MAX_DEFAULT
    #: Real time one effect's I/O, or a handler's own code between effect points, may take
    #: before the run counts it hung (EFFECT_HANG_MS_DEFAULT): UNSUPPORTED effect_hung or
    #: cpu_bound. Independent of budget_ms, so the same run means the same under any budget.
    effect_hang_ms: int = EFFECT_HANG_MS_DEFAULT
    #: Deliveries per run that may take a short batch (MAX_SHORT_BATCHES_DEFAULT).
    max_short_batches: int = MAX_SHORT_BATCHES_DEFAULT

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "maxFaultsPerRun": self.max_faults_per_run,
            "maxConcurrentInvocations": self.max_concurrent_invocations,
            "budgetMs": self.budget_ms,
            "faultProbability": self.fault_probability,
            "producedMessagesMax": self.produced_messages_max,
            "effectHangMs": self.effect_hang_ms,
        }
        if self.max_runs is not None:
            data["maxRuns"] = self.max_runs
        if self.max_redeliveries is not None:
            data["maxRedeliveries"] = self.max_redeliveries
        # Stated when a scenario explores short batches; at 0 the verdict reads as before it existed.
        if self.max_short_batches:
            data["maxShortBatches"] = self.max_short_batches
        return data



def _integer(value: Any, field: str, minimum: int, maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise UserError(f"bounds.{field} must be an integer of at least {minimum}, got {value!r}")
    if maximum is not None and value > maximum:
        raise UserError(f"bounds.{field} must be at most {maximum}, got {value!r}")
    return value


def _optional_integer(value: Any, field: str) -> int | None:
    return None if value is None else _integer(value, field, 0)


def resolve_bounds(
    scenario: Mapping[str, Any], *, max_runs: int | None = None, budget_ms: int | None = None
) -> Bounds:
    """The scenario's bounds with the caller's ``max_runs`` and ``budget_ms`` over them."""
    given = dict(scenario.get("bounds") or {})
    probability = given.get("faultProbability", FAULT_PROBABILITY_DEFAULT)
    if isinstance(probability, bool) or not isinstance(probability, (int, float)) or not 0 <= probability <= 1:
        raise UserError(f"bounds.faultProbability must be a number from 0 to 1, got {probability!r}")
    runs = max_runs if max_runs is not None else given.get("maxRuns")
    return Bounds(
        max_faults_per_run=_integer(given.get("maxFaultsPerRun", MAX_FAULTS_PER_RUN_DEFAULT), "maxFaultsPerRun", 0),
        max_redeliveries=_optional_integer(given.get("maxRedeliveries", MAX_REDELIVERIES_DEFAULT), "maxRedeliveries"),
        max_concurrent_invocations=_integer(
            given.get("maxConcurrentInvocations", MAX_CONCURRENT_INVOCATIONS_DEFAULT), "maxConcurrentInvocations", 1
        ),
        budget_ms=_integer(
            budget_ms if budget_ms is not None else given.get("budgetMs", BUDGET_MS_DEFAULT), "budgetMs", 0, BUDGET_MS_MAX
        ),
        fault_probability=float(probability),
        max_runs=None if runs is None else _integer(runs, "maxRuns", 1, RUNS_MAX),
        produced_messages_max=_integer(
            given.get("producedMessagesMax", PRODUCED_MESSAGES_MAX_DEFAULT), "producedMessagesMax", 0
        ),
        effect_hang_ms=_integer(given.get("effectHangMs", EFFECT_HANG_MS_DEFAULT), "effectHangMs", 1, BUDGET_MS_MAX),
        max_short_batches=_integer(
            given.get("maxShortBatches", MAX_SHORT_BATCHES_DEFAULT), "maxShortBatches", 0
        ),
    )


def with_bounds(scenario: Mapping[str, Any], bounds: Bounds) -> dict:
    """The scenario as plans carry it: its bounds resolved, defaults written out.

    A runtime reads the bounds from the plan's scenario; giving it the resolved ones
    means no runtime keeps defaults of its own that could drift from the engine's. Among
    them is ``effectHangMs``, the hang threshold runtimes arm (never ``budgetMs``); beside
    them go the platform's own bounds as its scenario helper wrote them (Cloudflare's
    ``alarmsPerObject``).
    """
    # A platform's own bounds (the scenario layer checked their names and values) ride along.
    own = {name: value for name, value in (scenario.get("bounds") or {}).items() if name not in BOUND_NAMES}
    # maxRedeliveries is written even when the scenario sets none (null: each platform's own
    # limit alone counts), so a runtime tells "none" from a plan that lost the field.
    return {**scenario, "bounds": {**own, **bounds.to_data(), "maxRedeliveries": bounds.max_redeliveries}}
