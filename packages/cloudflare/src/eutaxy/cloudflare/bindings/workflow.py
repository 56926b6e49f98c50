"""The Workflow binding kind (``workflows``): the Worker's own WorkflowEntrypoint classes, run by a model of the engine.

Every other kind proxies the real local implementation; a Workflow is the exception. The local
engine runs steps on its own real-time clock and retry loop, so it cannot be restarted between
a step committing and its result being persisted, which is the case that matters. The runtime
record (runtime/bindings/workflow.mjs) is the engine instead: ``create`` queues an instance, and
an instance runs the Worker's own class's ``run(event, step)`` as an invocation of its own
(``Workflow:<binding>/<instance>#<attempt>``), re-run from the start after each crash with the
step results persisted so far.

Its policy, sent in its load-message entry and read there by the runtime record: ``create`` and
an instance's ``sendEvent`` take the write ladder; each ``step.do`` attempt is two points around its callback, ``step`` before it
(crash_before: the instance restarts before the step runs) and ``step_result`` after it
(crash_after: the step ran and committed but its result was not persisted, so it runs again
after the restart; ambiguous: the attempt ran but counts as failed, as a timeout does); a failed
attempt is retried as :data:`STEP_RETRIES` says unless the step's config says otherwise.
bindings/ladders.json holds the rows, read by both suites.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import attrs

from eutaxy.core.errors import UserError
from eutaxy.core.selectors import rows

from ._record import BindingKind, DraftContext, KindNames, SetupStep, effect_selector

if TYPE_CHECKING:
    from eutaxy.cloudflare.wrangler import Binding, WranglerConfig

__all__ = ["STEP_RETRIES", "STEP_TIMEOUT_MS", "WORKFLOW", "WorkflowKind", "workflow", "workflow_create", "workflow_rows", "workflow_step", "workflow_steps"]

#: A step's retries when its config gives none (Cloudflare, Workflows: Sleeping and retrying:
#: "limit: 5, delay: 10000 (10 seconds), backoff: exponential"); the local engine waits 1 s.
STEP_RETRIES: dict[str, Any] = {"limit": 5, "delayMs": 10_000, "backoff": "exponential"}
#: A step attempt's timeout when its config gives none (the same page: 10 minutes).
STEP_TIMEOUT_MS = 10 * 60 * 1000


# --- the setup step ------------------------------------------------------------------------


def workflow(binding: str) -> dict[str, Any]:
    """Run Workflow binding ``binding``'s instances on the engine's model, every run starting with none.

    Raises:
        UserError: ``binding`` is not a binding name.
    """
    if not isinstance(binding, str) or not binding:
        raise UserError(f"workflow: binding must be a binding name such as 'ORDER_FLOW', got {binding!r}")
    return {"kind": "workflow", "binding": binding}


# --- selectors -----------------------------------------------------------------------------


def workflow_step(binding: str, step: str | None = None) -> dict[str, Any]:
    """A Workflow's step attempts that ran their callback to its end (``Workflow:<binding>``, op
    ``step_result``), optionally one step by name (``args.step``).

    Each carries ``args.instance``, ``args.step``, ``args.count`` (the step's occurrence in
    ``run``) and ``args.attempt``; its result is ``{value}`` or ``{error}``. An attempt that a
    crash stopped before its callback (crash_before at ``step``) is not selected; one whose result
    was not persisted (crash_after) or that counted as failed (ambiguous) ran, and is.
    """
    return effect_selector(f"Workflow:{binding}", "step_result", where=None if step is None else {"args.step": step})


def workflow_create(binding: str) -> dict[str, Any]:
    """Instances the Worker created on ``binding`` (``create``); the id at ``args.id`` and ``result.id``."""
    # A create that threw (an id that exists) has no result id.
    return effect_selector(f"Workflow:{binding}", "create", where={"result.id": {"notNull": True}})


def workflow_rows(binding: str, where: Iterable[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A Workflow's instances at the end of a run: rows ``{id, status, params, output?, error?}``."""
    return rows(f"Workflow:{binding}", "instances", where)


def workflow_steps(binding: str, where: Iterable[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A Workflow's persisted step results at the end of a run: rows ``{instance, step, count, value?, error?}``."""
    return rows(f"Workflow:{binding}", "steps", where)


# --- the record ----------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class WorkflowKind(BindingKind):
    """Workflows: the engine is a model (runtime/bindings/workflow.mjs); the instance runs the Worker's own class.

    A binding's resource is its class; the Workflow's ``name`` is ``event.workflowName``. A
    binding of another Worker's class (``script_name``) stands in as a trap. A binding no
    ``workflow`` step names is UNSUPPORTED when touched (``binding_without_setup``).
    """

    def _declared(self, config: "WranglerConfig") -> list["Binding"]:
        return [binding for binding in config.bindings if binding.kind == self.name]

    def resources(self, config: "WranglerConfig") -> dict[str, str]:
        """Binding -> class of each binding the model runs: a class of the Worker's own script."""
        return {binding.name: self.resource_of(binding) for binding in self._declared(config) if "script_name" not in binding.fields}

    def unmodelled(self, config: "WranglerConfig") -> list[tuple[str, str]]:
        return [(self.name, binding.name) for binding in self._declared(config) if "script_name" in binding.fields]

    def check_step(self, step: Mapping[str, Any], where: str) -> dict[str, Any]:
        return {"kind": self.setup_step, "binding": step["binding"]}

    def binding_settings(self, binding: "Binding") -> dict[str, Any]:
        return {"className": self.resource_of(binding), "workflowName": binding.fields.get("name")}

    def policy(self) -> dict[str, Any]:
        return {**super().policy(), "stepRetries": dict(STEP_RETRIES), "stepTimeoutMs": STEP_TIMEOUT_MS}

    def setup_hint(self, binding: str) -> str | None:
        return f"{self.setup_step}({json.dumps(binding)})"

    def assumptions(self, config: "WranglerConfig", steps: Sequence[Mapping[str, Any]]) -> list[str]:
        own = sorted(self.resources(config))
        retries = STEP_RETRIES
        return [
            f"Workflows ({', '.join(own)}) run on a model of the engine, not the local one: an instance runs the "
            "Worker's own class's run(event, step) as an invocation of its own; each step.do attempt is two points "
            "(crash_before: the instance restarts before the step runs; crash_after: the step ran but its result was "
            "not persisted, so it runs again; ambiguous: it ran but counts as failed); a failed attempt is retried "
            f"({retries['limit']} retries, {int(retries['delayMs']) // 1000} s apart, {retries['backoff']}, unless the step's config "
            "says otherwise; a NonRetryableError is not) after its delay in virtual time; a restart re-runs run() from "
            "the start with the persisted step and sleep results, so code outside steps repeats; step.sleep and "
            "step.sleepUntil wait in virtual time; step.waitForEvent returns an event sent before it at once, else "
            "suspends the instance (status waiting) until the event or its deadline (24 hours by default, in virtual "
            "time, then a WorkflowTimeoutError) wakes it, re-running run() with the persisted results; instance.sendEvent "
            "is one effect with a stub call's faults.",
        ]

    def concurrency_assumptions(self, config: "WranglerConfig") -> list[str]:
        return [
            "In a concurrent run a Workflow instance is an invocation like any other: each step point is a turn "
            "(the engine reads and persists a step asynchronously), as is each effect of its own code."
        ]

    def draft_setup(self, binding: "Binding", draft: DraftContext) -> tuple[dict[str, Any], list[str]]:
        draft.note("read", f"Workflow binding {binding.name} (class {self.resource_of(binding)}): every run starts with no instances "
                   f"({self.setup_step}({binding.name!r})); the instances the Worker creates run on the engine's model")
        return {"kind": self.setup_step, "binding": binding.name}, [f"{self.setup_step}({json.dumps(binding.name)}),"]

    def draft_invariants(self, binding: str, draft: DraftContext) -> list[str]:
        condition = '{"column": "status", "op": "eq", "value": "complete"}'
        return [f'every_row("{binding.lower()}-instances-complete", workflow_rows({json.dumps(binding)}), [{condition}]),']

    def draft_section_notes(self, draft: DraftContext) -> None:
        for binding in self._declared(draft.config):
            script = binding.fields.get("script_name")
            if script is None or script in draft.callees:
                draft.note("read", f"Workflow binding {binding.name}: an instance runs only once the Worker creates it "
                           f"(env.{binding.name}.create()); the drive's events must reach the code that does")
            else:
                draft.note("unproxied", f"Workflow binding {binding.name} (class {self.resource_of(binding)} of Worker {script}) "
                           "belongs to another Worker: a run that touches it ends UNSUPPORTED")


WORKFLOW = WorkflowKind(
    name="workflow",
    names=KindNames(label="Workflow", plural="Workflow bindings", noun="Workflow", reset_subject="Workflows"),
    section="workflows",
    resource_field="class_name",
    resource_required=True,
    fields=("name", "script_name"),
    section_note=(
        "The Worker's own WorkflowEntrypoint classes run on a model of the engine, reset by `workflow`; a class of "
        "another script (`script_name`) stands in as a trap (UNSUPPORTED when touched)."
    ),
    setup=SetupStep("workflow", without="unsupported", gives="the instances"),
    selectors=("workflow_step", "workflow_create", "workflow_rows", "workflow_steps"),
    operations={"create": "write", "send_event": "write", "step": "step", "step_result": "stepResult"},
    reset_phrase="forget every instance",
)
