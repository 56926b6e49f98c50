"""The binding record: everything Python knows about one binding kind, in one class.

A binding kind is two records, one per language: a frozen attrs class here (one module per
kind, ``bindings/<kind>.py``) and the runtime's record (``runtime/bindings/<kind>.mjs``, or
the file ``runtime_module`` names). Everything else iterates over the registered kinds
(:func:`eutaxy.cloudflare.bindings.registered`) and names none: the wrangler reader reads
each kind's section, ``worker.prepare_worker`` checks each setup step with its kind's
``check_step`` and puts each kind's entry in the load message (``load_entry``), the verdict's
assumptions gather each kind's sentences, the drafter writes each kind's setup step and
example invariants, and the host (runtime/host/load.mjs) hands each kind's entry to its
runtime record.

What a kind says once, here:

- its wrangler section (``section``, ``resource_field``, the other ``fields`` it reads,
  ``resource_of``) and the docs' sentence about it;
- its setup step (``setup_step``), that step's validation (``check_step``) and what each
  binding's setup is at run time (``setups``: D1's schema files and the config's migrations);
- what a use without a setup step means (``without_setup``): ``"empty"`` (the binding starts
  every run empty, a semantic Cloudflare shares: a new namespace is empty) or
  ``"unsupported"`` (its state would carry over between runs, so touching it ends the run
  UNSUPPORTED with the one cause ``binding_without_setup``; the runtime applies the rule for
  every kind, in runtime/bindings/index.mjs);
- its part of the load message (``load_entry``), with the policy its runtime record reads;
- the sentences a verdict assumes of it (``assumptions``), of its reset (``reset_phrase``) and
  of what only production does with it (``production_only``);
- what it adds to its own effects after a run (``with_effect_details``: D1's statement classes);
- its selectors' target label (``label``), and the state queries a verdict may make of it;
- what ``eutaxy draft`` writes for it (``draft_setup``, ``draft_invariants``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Mapping, Protocol, Sequence

import attrs

from eutaxy.core import faults
from eutaxy.core.effects import RESULT

if TYPE_CHECKING:
    from eutaxy.cloudflare.wrangler import Binding, WranglerConfig

__all__ = ["LADDERS", "BindingKind", "DraftContext", "WithoutSetup", "effect_selector"]

#: The core ladders an operation may take, by the name core's ladders.json gives them.
LADDERS: Mapping[str, tuple[str, ...]] = {"read": faults.READ_FAULTS, "write": faults.WRITE_FAULTS}

#: What touching a binding of the kind that no setup step names means (see the module docstring).
WithoutSetup = Literal["empty", "unsupported"]


class DraftContext(Protocol):
    """What ``eutaxy draft`` offers a kind's draft hooks (``draft_setup``, ``draft_invariants``)."""

    #: The config drafted from, and its folder (where a kind looks for its files).
    config: "WranglerConfig"
    folder: Path
    #: What a kind's ``draft_setup`` found for a binding, by binding, for its ``draft_invariants``.
    found: dict[str, Any]
    #: The drive's variable in the file (its events), None when the drive is a hole.
    drive_variable: str | None
    #: The first string field of the event body the Worker reads, None when the scan saw none.
    body_key: str | None

    def note(self, kind: str, text: str) -> None:
        """Add a note to the draft (``read``, ``guess``, ``unread``, ...)."""

    def hole(self, name: str, hint: str) -> str:
        """The ``todo(...)`` call for a hole the author fills."""

    def relative(self, path: Path) -> str:
        """``path`` as the drafted file names it (relative to its folder)."""


@attrs.frozen(kw_only=True)
class BindingKind:
    """One binding kind, as Python knows it. Each kind subclasses it once, frozen, in its own module.

    The fields are data the rest of the package reads; the methods are the kind's own rules,
    which a subclass overrides where its kind has them.
    """

    #: The kind as :class:`~eutaxy.cloudflare.wrangler.Binding` names it (``"kv"``), and the
    #: runtime record's ``kind``: the load message's key for the kind.
    name: str
    #: How users and targets name it: a selector's target is ``<label>:<binding>`` (``KV:CACHE``).
    label: str
    #: The wrangler section whose ``{"binding": NAME, ...}`` entries declare its bindings.
    section: str
    #: The field of a section entry naming the resource behind the binding (the binding's name when absent).
    resource_field: str
    #: Other fields of a section entry the kind reads: each is checked to be a string where an
    #: entry sets it and kept in the binding's ``fields`` (D1's ``migrations_dir``).
    fields: tuple[str, ...] = ()
    #: The docs' sentence for the section's row (config_sections' table).
    section_note: str
    #: The config's bindings of the kind, as messages name them ("KV namespaces").
    plural: str
    #: One binding's resource, as messages name it ("namespace").
    noun: str
    #: What a setup step gives one binding, as the draft's note names it ("the entries").
    contents: str
    #: The setup step resetting one binding (its helper in the scenario has the same name).
    setup_step: str
    without_setup: WithoutSetup
    #: The Miniflare option the bindings are given to (``kvNamespaces``), or None when the
    #: runtime record models the binding whole, with no Miniflare binding behind it.
    miniflare_option: str | None
    #: How the reset sentence says the kind is reset, or None when it says nothing of it.
    reset_phrase: str | None = None
    #: What production does with the kind that no local run can (the verdict's sentence on
    #: production-only behaviour names it), or None.
    production_only: str | None = None
    #: Each operation that is an effect point -> the core ladder it takes (``"read"``,
    #: ``"write"``): sent to the runtime record as its ladders (``policy``), which it reads and
    #: never writes down itself. bindings/ladders.json holds the rows, read by both suites.
    operations: Mapping[str, str] = attrs.field(factory=dict)
    #: The names of the kind's selector and key helpers (its module's, re-exported by
    #: ``eutaxy.cloudflare``), which the draft imports when an example uses one.
    selectors: tuple[str, ...] = ()
    #: The runtime record's file, absolute, for a kind whose record is not one of
    #: runtime/bindings/ (the bundle imports it); None for those.
    runtime_module: str | None = None

    def __attrs_post_init__(self) -> None:
        assert self.name and self.label and self.section and self.setup_step, self
        assert self.runtime_module is None or self.runtime_module.startswith("/"), self.runtime_module
        assert set(self.operations.values()) <= set(LADDERS), self.operations

    def resources(self, config: "WranglerConfig") -> dict[str, str]:
        """Binding -> resource of each of the config's bindings of this kind, in its order."""
        return {binding.name: self.resource_of(binding) for binding in config.bindings if binding.kind == self.name}

    def resource_of(self, binding: "Binding") -> str:
        """The resource behind one binding: its ``resource_field``, else the binding's name."""
        return binding.resource or binding.name

    def setup_hint(self, binding: str) -> str:
        """The setup step to add for ``binding``, as a scenario writes it (messages and traps say it)."""
        return f"{self.setup_step}({json.dumps(binding)}, {{...}})"

    def check_step(self, step: Mapping[str, Any], where: str) -> dict[str, Any]:
        """The setup step as the load message carries it; raises UserError naming ``where`` when it does not fit.

        The step names a binding of this kind the config declares (the caller checked that).
        """
        raise NotImplementedError(f"the {self.name} binding kind has no setup step check")

    def setups(self, config: "WranglerConfig", steps: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any] | None]:
        """Binding -> its setup as the runtime record reads it, for each binding of the kind the
        config declares: its checked step (``steps`` are the kind's, one per binding at most),
        None without one. A binding with None is what ``without_setup`` rules on."""
        by_binding = {step["binding"]: dict(step) for step in steps}
        return {name: by_binding.get(name) for name in self.resources(config)}

    def policy(self) -> dict[str, Any]:
        """What the runtime record reads of the kind's policy: its ladder per operation (``operations``)."""
        return {"ladders": {op: list(LADDERS[ladder]) for op, ladder in self.operations.items()}}

    def load_entry(self, config: "WranglerConfig", steps: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """The kind's entry in the load message: its bindings, each with its setup step (None without one)."""
        setups = self.setups(config, steps)
        return {
            "label": self.label,
            "setupStep": self.setup_step,
            "withoutSetup": self.without_setup,
            "miniflare": self.miniflare_option,
            "module": self.runtime_module,
            "policy": self.policy(),
            "bindings": {
                name: {"resource": resource, "setup": setups[name], "setupHint": self.setup_hint(name)}
                for name, resource in self.resources(config).items()
            },
        }

    def assumptions(self, config: "WranglerConfig", steps: Sequence[Mapping[str, Any]]) -> list[str]:
        """What a verdict assumes of the kind, for a Worker whose config declares bindings of it
        (never none) and a setup with ``steps`` for some (the kind's checked steps)."""
        return []

    def with_effect_details(self, effects: list[Any]) -> list[Any]:
        """A run's effects as the platform hands them on, with what the kind adds to its own
        effects' payloads after the run (D1's statement class); the effects themselves by default."""
        return effects

    def draft_setup(self, binding: "Binding", draft: DraftContext) -> tuple[dict[str, Any], list[str]]:
        """The setup step ``eutaxy draft`` writes for one binding: the step as data and its lines of Python."""
        draft.note("guess", self.draft_note(binding.name))
        return {"kind": self.setup_step, "binding": binding.name}, [f"{self.setup_step}({json.dumps(binding.name)}),"]

    def draft_invariants(self, binding: str, draft: DraftContext) -> list[str]:
        """The example invariants ``eutaxy draft`` writes for one binding (lines of Python)."""
        return []

    def draft_note(self, binding: str) -> str:
        """The draft's note on the setup step it writes for ``binding``."""
        return f"{self.name} binding {binding}: starts every run empty ({self.setup_step}({binding!r})); give it {self.contents} it should hold"


def effect_selector(target: str, op: Any, kind: str = RESULT, where: dict[str, Any] | None = None) -> dict[str, Any]:
    """The plain selector data ``eutaxy.core.selectors`` matches: every kind's selectors build theirs with it."""
    selector: dict[str, Any] = {"target": target, "op": op, "kind": kind}
    if where:
        selector["where"] = where
    return selector
