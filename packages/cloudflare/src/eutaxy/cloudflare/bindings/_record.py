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

- its wrangler section (``section``, dotted when it is a list inside an object:
  ``queues.consumers``; ``binding_field``, ``resource_field``, the other ``fields`` and
  ``int_fields`` it reads, ``resource_of``; ``read_bindings`` for a section of another shape,
  ``read_settings`` for what the kind reads of the config beyond its bindings (and
  ``callee_settings``, how a callee Worker's join the caller's), ``check_config``
  for what it refuses there, ``unmodelled`` for the bindings of its section that stand in as
  traps) and the docs' sentence about it;
- its setup step (``setup``, a :class:`SetupStep`; None for a kind that needs none: a queue),
  that step's validation (``check_step``) and what each binding's setup is at run time
  (``setups``: D1's schema files and the config's migrations);
- what a use without a setup step means (the step's ``without``, read as ``without_setup``):
  ``"empty"`` (the binding starts every run empty, a semantic Cloudflare shares: a new
  namespace is empty; always so for a kind without a setup step) or ``"unsupported"`` (its
  state would carry over between runs, so touching it ends the run UNSUPPORTED with the one
  cause ``binding_without_setup``; the runtime applies the rule for every kind, in
  runtime/bindings/index.mjs);
- its part of the load message (``load_entry``), with the policy its runtime record reads and
  each binding's settings (``binding_settings``: a queue consumer's max_retries), the kind's
  own (``section_settings``: the assets section), the Miniflare options it gives
  (``miniflare_options``) and the Worker's classes the bundle wraps for it
  (``wrapped_classes``, refused by ``missing_export_error`` when the entry does not export one);
- the sentences a verdict assumes of it (``assumptions``, listed with the other kinds' or, with
  ``assumptions_last``, after the config's own sentences), of its reset (``reset_phrase``) and
  of what only production does with it (``production_only``);
- the drive it delivers, when the Worker's own events come through it (``drive``: the queue
  consumer's ``queue`` drive): the drive's check (``check_drive``), the sentences a verdict over
  it assumes (``drive_assumptions``), what ``define_scenario`` fills in of it (``define_drive``)
  and what ``eutaxy draft`` writes for it (``draft_drive``);
- what it adds to its own effects after a run (``with_effect_details``: D1's statement classes);
- its selectors' target label (``label``; kinds may share one, as a queue's producers and
  consumer share ``Queue:<queue>``), the names targets take (``targets``), a target the kind
  refuses (``target_problem``), and the state queries a verdict may make of it;
- what ``eutaxy draft`` writes for it (``draft_setup``, ``draft_invariants``, ``draft_notes``,
  ``draft_section_notes``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Literal, Mapping, Protocol, Sequence

import attrs

from eutaxy.core import faults
from eutaxy.core.effects import RESULT

if TYPE_CHECKING:
    from eutaxy.cloudflare.source_scan import SourceScan
    from eutaxy.cloudflare.wrangler import Binding, WranglerConfig, _Reader
    from eutaxy.core.errors import UserError

__all__ = ["LADDERS", "BindingKind", "DraftContext", "KindNames", "SetupStep", "WithoutSetup", "effect_selector"]

#: The core ladders an operation may take, by the name core's ladders.json gives them.
LADDERS: Mapping[str, tuple[str, ...]] = {
    "read": faults.READ_FAULTS,
    "write": faults.WRITE_FAULTS,
    "decision": faults.DECISION_FAULTS,
    "step": faults.STEP_FAULTS,
    "stepResult": faults.STEP_RESULT_FAULTS,
}

#: What touching a binding of the kind that no setup step names means (see the module docstring).
WithoutSetup = Literal["empty", "unsupported"]


@attrs.frozen(kw_only=True)
class KindNames:
    """How users, targets and messages name a kind and its bindings."""

    #: A selector's target is ``<label>:<binding>`` (``KV:CACHE``); kinds may share a label (a
    #: queue's producers and consumer both name ``Queue:<queue>``).
    label: str
    #: The config's bindings of the kind, as messages name them ("KV namespaces").
    plural: str
    #: One binding's resource, as messages name it ("namespace").
    noun: str
    #: How messages name one binding's kind ("Durable Object binding COUNTER was touched"); the label when None.
    title: str | None = None
    #: How the reset sentence names the kind ("Durable Objects"); the label when None.
    reset_subject: str | None = None


@attrs.frozen
class SetupStep:
    """A kind's setup step: the scenario's helper that resets one binding before each run, what
    touching a binding no step names means, and what a step gives it."""

    #: The step's ``kind``, and its helper's name in the scenario (``kv_namespace``).
    name: str
    #: ``"empty"`` (a binding no step names starts every run empty) or ``"unsupported"``.
    without: WithoutSetup
    #: What a step gives one binding, as the draft's note names it ("the entries").
    gives: str


class DraftContext(Protocol):
    """What ``eutaxy draft`` offers a kind's draft hooks (``draft_setup``, ``draft_invariants``)."""

    #: The config drafted from, and its folder (where a kind looks for its files).
    config: "WranglerConfig"
    folder: Path
    #: What a kind's ``draft_setup`` found for a binding, by binding, for its ``draft_invariants``.
    found: dict[str, Any]
    #: The Workers the draft runs as callees (``callee(...)``), by name: their classes are run.
    callees: set[str]
    #: The drive's variable in the file (its events), None when the drive is a hole.
    drive_variable: str | None
    #: The id-like field (else the first string field) of the event body the Worker reads,
    #: when the drive's example events carry it; None otherwise (never a key of a bodiless event).
    body_key: str | None
    #: What the text scan of the Worker's modules read (its D1 statements, its fetches, ...).
    scan: "SourceScan"

    def note(self, kind: str, text: str) -> None:
        """Add a note to the draft (``read``, ``guess``, ``unread``, ...)."""

    def hole(self, name: str, hint: str) -> str:
        """The ``todo(...)`` call for a hole the author fills."""

    def relative(self, path: Path) -> str:
        """``path`` as the drafted file names it (relative to its folder)."""

    def uses(self, name: str) -> None:
        """Import ``name`` from ``eutaxy.cloudflare`` in the drafted file (a drive's helper)."""

    def identifier(self, text: str, fallback: str) -> str:
        """A Python name for ``text`` no other name in the file has (a drive's variable)."""

    def python(self, value: Any) -> str:
        """A value (JSON data) as Python source, as the drafted file writes it."""

    def body_hint(self) -> tuple[dict[str, Any] | None, str]:
        """An example event body from the fields the scan saw the Worker read, and the sentence
        saying how it was read; (None, "") when the scan saw none."""

    @property
    def handlers(self) -> frozenset[str]:
        """The handlers the scan found the Worker's entry exporting (``fetch``, ``queue``, ...)."""

    @property
    def entry_name(self) -> str:
        """The entry module as the draft's notes name it."""


@attrs.frozen(kw_only=True)
class BindingKind:
    """One binding kind, as Python knows it. Each kind subclasses it once, frozen, in its own module.

    The fields are data the rest of the package reads; the methods are the kind's own rules,
    which a subclass overrides where its kind has them.
    """

    #: The kind as :class:`~eutaxy.cloudflare.wrangler.Binding` names it (``"kv"``), and the
    #: runtime record's ``kind``: the load message's key for the kind.
    name: str
    #: How users, targets and messages name it (:class:`KindNames`: its label, ``KV``).
    names: KindNames
    #: The wrangler section whose ``{"binding": NAME, ...}`` entries declare its bindings: a
    #: top-level key, or ``key.list`` for a list inside a top-level object (``queues.consumers``).
    section: str
    #: The field of a section entry naming the binding (``binding``; a queue consumer's ``queue``).
    binding_field: str = "binding"
    #: The field of a section entry naming the resource behind the binding (the binding's name when absent).
    resource_field: str
    #: True when an entry must name its resource (a queue producer's ``queue``).
    resource_required: bool = False
    #: Other fields of a section entry the kind reads: each is checked to be a string where an
    #: entry sets it and kept in the binding's ``fields`` (D1's ``migrations_dir``).
    fields: tuple[str, ...] = ()
    #: Whole-number fields of a section entry the kind reads: field -> (least, most, unit), each
    #: checked to be an integer in that range where an entry sets it (the unit, `` seconds``, is
    #: said after the range) and kept in the binding's ``numbers`` (a queue consumer's ``max_retries``).
    int_fields: Mapping[str, tuple[int, int, str]] = attrs.field(factory=dict)
    #: The docs' sentence for the section's row (config_sections' table); kinds reading lists of
    #: one top-level object (``queues``) share its row, their sentences in registration order.
    section_note: str
    #: The setup step resetting one binding, or None (the default) for a kind that needs none:
    #: nothing of its bindings outlives a run (a queue's model is made anew each run), so they
    #: start every run empty.
    setup: SetupStep | None = None
    #: False when the kind's bindings are no names in ``env`` (a queue consumer is the Worker's
    #: ``queue()`` handler, its bindings named by queue).
    env_bindings: bool = True
    #: The Miniflare option the bindings are given to (``kvNamespaces``), or None (the default)
    #: when the runtime record models the binding whole, with no Miniflare binding behind it
    #: (``miniflare_options`` builds the option's value).
    miniflare_option: str | None = None
    #: How the reset sentence says the kind is reset, or None when it says nothing of it.
    reset_phrase: str | None = None
    #: Where an environment finds the section (config_sections' ``Where``): ``own`` (a binding
    #: section, not inherited) or ``inherited``.
    section_where: Literal["own", "inherited"] = "own"
    #: Whether the Agents SDK's routeAgentRequest serves the kind's bindings (``eutaxy draft``
    #: sends its http drive to their routes).
    routes_agents: bool = False
    #: The scenario's bounds only the kind's bindings use (engine/bounds.py names them): a
    #: Worker without bindings of the kind leaves them unused, as its verdict says.
    bounds: tuple[str, ...] = ()
    #: False when the label's targets are not the kind's bindings alone (the assets' responses,
    #: ``Assets:<path>``): an invariant's target of the label is then not checked.
    checks_targets: bool = True
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
    #: The drive (the scenario's ``drive.kind``) that delivers the Worker's events through the
    #: kind, None when it has none: the queue consumer's ``queue``.
    drive: str | None = None
    #: The Worker's handler the drive calls (``queue``), and what in the config gives it events
    #: to deliver, as the draft's notes name it (``queue consumer``); None without a drive.
    drive_handler: str | None = None
    drive_source: str | None = None
    #: True when the kind's assumptions come after the config's own sentences (its CPU limit,
    #: its environment) rather than with the other kinds', where verdicts have listed them.
    assumptions_last: bool = False

    def __attrs_post_init__(self) -> None:
        assert self.name and self.label and self.section, self
        assert self.runtime_module is None or self.runtime_module.startswith("/"), self.runtime_module
        assert (self.drive is None) == (self.drive_handler is None) == (self.drive_source is None), self.name
        assert set(self.operations.values()) <= set(LADDERS), self.operations

    @property
    def label(self) -> str:
        """The kind's label, as targets name it (``KV`` in ``KV:CACHE``)."""
        return self.names.label

    @property
    def plural(self) -> str:
        """The config's bindings of the kind, as messages name them ("KV namespaces")."""
        return self.names.plural

    @property
    def noun(self) -> str:
        """One binding's resource, as messages name it ("namespace")."""
        return self.names.noun

    @property
    def title(self) -> str:
        """How messages name one binding's kind ("Durable Object"): the label unless the names give a title."""
        return self.names.title or self.names.label

    @property
    def reset_subject(self) -> str:
        """How the reset sentence names the kind ("Durable Objects"): the label unless the names give one."""
        return self.names.reset_subject or self.names.label

    @property
    def setup_step(self) -> str | None:
        """The setup step's name (its helper in the scenario has the same name), None without one."""
        return None if self.setup is None else self.setup.name

    @property
    def without_setup(self) -> WithoutSetup:
        """What touching a binding no setup step names means: the step's ``without``; ``"empty"`` for a kind without one."""
        return "empty" if self.setup is None else self.setup.without

    @property
    def top_section(self) -> str:
        """The top-level key of the config holding the kind's section (``queues`` for ``queues.consumers``)."""
        return self.section.split(".")[0]

    def resources(self, config: "WranglerConfig") -> dict[str, str]:
        """Binding -> resource of each of the config's bindings of this kind, in its order."""
        return {binding.name: self.resource_of(binding) for binding in config.bindings if binding.kind == self.name}

    def resource_of(self, binding: "Binding") -> str:
        """The resource behind one binding: its ``resource_field``, else the binding's name."""
        return binding.resource or binding.name

    def read_bindings(self, reader: "_Reader", data: Mapping[str, Any]) -> list["Binding"] | None:
        """The kind's bindings from the config's data when its section is of another shape than a
        list of entries (the wrangler reader's); None: the reader reads the section."""
        return None

    def read_settings(self, reader: "_Reader", data: Mapping[str, Any]) -> Any:
        """What the kind reads of the config beyond its bindings (``WranglerConfig.settings_of``); None by default."""
        return None

    def check_config(self, config: "WranglerConfig") -> None:
        """Refuse, with a UserError, what the kind cannot run in a config the reader accepted; nothing by default."""

    def callee_settings(self, settings: Any, callee: Any, alias: Callable[[str], str]) -> Any:
        """The kind's settings (``read_settings``) of the caller's config once a callee Worker's join
        it: ``settings`` the joined ones so far, ``callee`` the callee's own, ``alias`` the name its
        classes take in the isolate (``inventory.Counter``). The caller's as they are by default."""
        return settings

    def unmodelled(self, config: "WranglerConfig") -> list[tuple[str, str]]:
        """The config's bindings of the kind's section the runtime does not model, as (kind,
        binding): each stands in as a trap. None by default."""
        return []

    def targets(self, config: "WranglerConfig") -> list[str]:
        """The names the config's bindings of the kind take in targets (``<label>:<name>``): the binding names."""
        return list(self.resources(config))

    def target_problem(self, config: "WranglerConfig", field: str, name: str) -> str | None:
        """Why an invariant's ``field`` (``selector``, ``query``, ...) may not name the kind's target
        ``name`` although the Worker has it, as the message's end; None when it may."""
        return None

    def setup_hint(self, binding: str) -> str | None:
        """The setup step to add for ``binding``, as a scenario writes it (messages and traps say it); None without a setup step."""
        if self.setup_step is None:
            return None
        return f"{self.setup_step}({json.dumps(binding)}, {{...}})"

    def check_step(self, step: Mapping[str, Any], where: str) -> dict[str, Any]:
        """The setup step as the load message carries it; raises UserError naming ``where`` when it does not fit.

        The step names a binding of this kind the config declares (the caller checked that).
        """
        raise NotImplementedError(f"the {self.name} binding kind has no setup step check")

    def check_config_step(self, config: "WranglerConfig", step: Mapping[str, Any], where: str) -> dict[str, Any]:
        """``check_step`` for a kind whose step's check reads the config (the step names a binding
        of the kind the config declares); ``check_step`` by default."""
        return self.check_step(step, where)

    def setups(self, config: "WranglerConfig", steps: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any] | None]:
        """Binding -> its setup as the runtime record reads it, for each binding of the kind the
        config declares: its checked step (``steps`` are the kind's, one per binding at most),
        None without one. A binding with None is what ``without_setup`` rules on."""
        by_binding = {step["binding"]: dict(step) for step in steps}
        return {name: by_binding.get(name) for name in self.resources(config)}

    def binding_settings(self, binding: "Binding") -> dict[str, Any]:
        """What the runtime record reads of one binding's own settings (its section entry): none by default."""
        return {}

    def policy(self) -> dict[str, Any]:
        """What the runtime record reads of the kind's policy: its ladder per operation (``operations``)."""
        return {"ladders": {op: list(LADDERS[ladder]) for op, ladder in self.operations.items()}}

    def section_settings(self, config: "WranglerConfig") -> dict[str, Any] | None:
        """The kind's own settings its runtime record reads, beyond its bindings' (the assets
        section, which Miniflare's option takes whole), or None."""
        return None

    def miniflare_options(self, config: "WranglerConfig") -> dict[str, Any]:
        """The Miniflare options the kind gives the Worker: its bindings' resources under
        ``miniflare_option`` (an empty map without bindings), none when that is None."""
        if self.miniflare_option is None:
            return {}
        return {self.miniflare_option: dict(self.resources(config))}

    def wrapped_classes(self, config: "WranglerConfig") -> list[str]:
        """The Worker's exported classes the bundle wraps for the kind's runtime record; none by default."""
        return []

    def missing_export_error(self, config: "WranglerConfig", classes: list[str], entry: Path) -> "UserError":
        """The UserError for ``classes`` of ``wrapped_classes`` the Worker's entry does not export."""
        raise NotImplementedError(f"the {self.name} binding kind wraps no classes")

    def load_entry(self, config: "WranglerConfig", steps: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """The kind's entry in the load message: its bindings, each with its setup step (None without
        one) and its settings (``binding_settings``)."""
        setups = self.setups(config, steps)
        settings = {binding.name: self.binding_settings(binding) for binding in config.bindings if binding.kind == self.name}
        return {
            "label": self.label,
            "title": self.title,
            "setupStep": self.setup_step,
            "withoutSetup": self.without_setup,
            "miniflare": self.miniflare_options(config),
            "module": self.runtime_module,
            "policy": self.policy(),
            "section": self.section_settings(config),
            "classes": self.wrapped_classes(config),
            "bindings": {
                name: {"resource": resource, "setup": setups[name], "setupHint": self.setup_hint(name), "settings": settings[name]}
                for name, resource in self.resources(config).items()
            },
        }

    def assumptions(self, config: "WranglerConfig", steps: Sequence[Mapping[str, Any]]) -> list[str]:
        """What a verdict assumes of the kind, for a Worker whose config declares bindings of it
        (never none) and a setup with ``steps`` for some (the kind's checked steps)."""
        return []

    def production_only_of(self, config: "WranglerConfig", drive: Mapping[str, Any]) -> str | None:
        """What production does with the kind that no local run can, for a Worker with ``config``
        checked over ``drive``: ``production_only`` when the config declares bindings of the kind."""
        return self.production_only if self.production_only and self.resources(config) else None

    def define_drive(self, drive: Mapping[str, Any]) -> dict[str, Any]:
        """The kind's drive as ``define_scenario`` writes it, before it reads the events: what the
        drive's helper fills in that a drive written by hand may lack. The drive as it is by default."""
        return dict(drive)

    def check_drive(self, config: "WranglerConfig", drive: Mapping[str, Any]) -> None:
        """Refuse (UserError) a scenario's drive of the kind's ``drive`` kind that does not fit the config."""
        raise NotImplementedError(f"the {self.name} binding kind has no drive")

    def drive_assumptions(self, config: "WranglerConfig", drive: Mapping[str, Any]) -> list[str]:
        """What a verdict over the kind's drive assumes, after the production-only sentence."""
        return []

    def concurrency_assumptions(self, config: "WranglerConfig") -> list[str]:
        """What a verdict over a concurrent run (``maxConcurrentInvocations`` above 1) assumes of
        the kind, for a Worker whose config declares bindings of it; nothing by default."""
        return []

    def run_assumptions(self, effects: Sequence[Any]) -> list[str]:
        """What a verdict assumes because a run did something with the kind (D1's sessions), from
        the run's effects; none by default. The platform lists each sentence once, after the others."""
        return []

    def with_effect_details(self, effects: list[Any]) -> list[Any]:
        """A run's effects as the platform hands them on, with what the kind adds to its own
        effects' payloads after the run (D1's statement class); the effects themselves by default."""
        return effects

    def draft_setup(self, binding: "Binding", draft: DraftContext) -> tuple[dict[str, Any], list[str]]:
        """The setup step ``eutaxy draft`` writes for one binding: the step as data and its lines of
        Python (a kind with a setup step; the draft writes none for the others)."""
        assert self.setup_step is not None, self.name
        draft.note("guess", self.draft_note(binding.name))
        return {"kind": self.setup_step, "binding": binding.name}, [f"{self.setup_step}({json.dumps(binding.name)}),"]

    def draft_drive_notes(self, draft: DraftContext) -> bool:
        """Before the draft picks its drive: the notes a kind with a ``drive`` has on the Worker's
        entry points, and whether the drive is the kind's (the config gives it events to deliver)."""
        return False

    def draft_drive(self, draft: DraftContext) -> tuple[dict[str, Any], list[str], list[dict[str, Any]]]:
        """The drive ``eutaxy draft`` writes when it is the kind's: the drive as data (``kind``,
        ``name``, ``variable``), its lines of Python, and example events."""
        raise NotImplementedError(f"the {self.name} binding kind has no drive")

    def draft_notes(self, binding: "Binding", draft: DraftContext) -> None:
        """The draft's notes on one binding of the kind, after the drive's and the externals' (none by default)."""

    def draft_invariants(self, binding: str, draft: DraftContext) -> list[str]:
        """The example invariants ``eutaxy draft`` writes for one binding (lines of Python)."""
        return []

    def draft_section_notes(self, draft: DraftContext) -> None:
        """The draft's notes on the kind's section as a whole: what of it a run does not model
        (``unmodelled``), what the kind does that the drafter should say; none by default."""

    def draft_note(self, binding: str) -> str:
        """The draft's note on the setup step it writes for ``binding``."""
        assert self.setup is not None, self.name
        return f"{self.name} binding {binding}: starts every run empty ({self.setup.name}({binding!r})); give it {self.setup.gives} it should hold"


def effect_selector(target: str, op: Any, kind: str = RESULT, where: dict[str, Any] | None = None) -> dict[str, Any]:
    """The plain selector data ``eutaxy.core.selectors`` matches: every kind's selectors build theirs with it."""
    selector: dict[str, Any] = {"target": target, "op": op, "kind": kind}
    if where:
        selector["where"] = where
    return selector
