"""From a scenario and its wrangler config to the Worker the host loads.

This is where the scenario's relative paths meet the files on disk and the
config's bindings meet the setup steps, so every mismatch a user can make
(a missing entry, a schema for a binding the Worker lacks, a drive for a queue
it does not consume) is found here, before Node starts, as a
:class:`~eutaxy.core.errors.UserError`.

What it cannot decide before a run is left to the run: a binding no setup step resets is
allowed in the config (a Worker may bind databases a scenario never touches), and its kind's
record says what touching it means (``BindingKind.without_setup``), which the runtime applies.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import attrs

from eutaxy.core import faults
from eutaxy.core.errors import UserError, nearest_names

from . import bindings, config_sections, externals, variables, wrangler
from .bindings.service import owner_of
from .callee import CALLEE_STEP, Callee, callee_assumption, with_callees
from .cron import cron_assumption
from .http import caller_assumption
from .rpc import enhanced_error_serialization, error_serialization_assumption, rpc_assumption

__all__ = ["LoadMessage", "WorkerSpec", "compatibility_date_assumption", "prepare_worker"]

#: The request headers Cloudflare Access sets on a request it lets through (the identity's JWT,
#: ``Cf-Access-Jwt-Assertion``, and the authenticated user's email and id): lower case, as
#: Headers compares names.
ACCESS_HEADER_PREFIX = "cf-access-"

#: The module types the bundler writes beside the bundle as modules (runtime/host/bundler.mjs);
#: a rule of a JavaScript type only says how esbuild already bundles such a file.
_MODULE_RULE_TYPES = ("Text", "Data", "CompiledWasm")
#: The module types a no_bundle Worker's modules can be loaded as (workerd's, as Miniflare names them).
_UNBUNDLED_MODULE_TYPES = ("ESModule", "CommonJS", *_MODULE_RULE_TYPES)

#: Every binding kind the runtime proxies and models is a registered one
#: (``eutaxy.cloudflare.bindings``): the rest stand in as traps. Which unmodelled kinds are
#: outside the seeds' allowlist (binding_not_allowed) rather than not modelled yet
#: (binding_not_modelled) is the runtime's to say (unsupported.mjs): the load message lists
#: every unmodelled binding by kind, and the trap names the cause.


def _frozen_dict(value: Mapping[str, Any]) -> dict[str, Any]:
    return dict(value)


@attrs.frozen(kw_only=True)
class LoadMessage:
    """The host's ``load`` request: the first message, which loads the Worker into workerd.

    Each field is one the runtime reads (runtime/host/load.mjs), and ``to_data`` is the
    message's only producer; runtime/host/load.schema.json is its one schema, which the host
    checks every load request against and packages/cloudflare/tests/test_worker.py checks
    ``to_data`` against. prepare_worker has refused every user mistake before one is built,
    so what is asserted here is Eutaxy's own invariant, paired with the host's check.
    """

    #: The Worker's entry module, absolute.
    entry: str
    #: Core modules whose exports the bundle wraps to record decisions (absolute paths).
    specs: tuple[str, ...]
    compatibility_date: str
    compatibility_flags: tuple[str, ...]
    #: The platform's ladders by name (``eutaxy.core.faults.RUNTIME_LADDERS``), which the
    #: runtime's effect points take (runtime/effects.mjs ``ladderNamed``) and write none down.
    ladders: Mapping[str, tuple[str, ...]] = attrs.field(converter=_frozen_dict)
    #: Each registered binding kind's entry (``BindingKind.load_entry``): its bindings, each
    #: with its resource and its setup step (None without one), and the policy its runtime
    #: record reads. Every registered kind has one, empty of bindings when the config has none.
    kinds: Mapping[str, Mapping[str, Any]] = attrs.field(converter=_frozen_dict)
    #: Every var and secret as the Worker sees it in ``env`` (``variables.worker_variables``):
    #: the config's vars, .dev.vars, the scenario's. Holds secret values, so never printed.
    vars: Mapping[str, Any] = attrs.field(converter=_frozen_dict, repr=False)
    #: Every binding the runtime does not model, as (kind, name): each becomes a trap, so
    #: touching one makes the run UNSUPPORTED, never a silent pass.
    bindings: tuple[tuple[str, str], ...]
    #: The setup steps of the kinds not registered; a registered kind's steps are in its
    #: ``kinds`` entry.
    setup: tuple[Mapping[str, Any], ...]
    #: The config's ``define``: identifier -> the expression esbuild puts in its place.
    define: Mapping[str, str] = attrs.field(converter=_frozen_dict, factory=dict)
    #: The config's ``alias``: module -> its replacement (relative paths made absolute).
    alias: Mapping[str, str] = attrs.field(converter=_frozen_dict, factory=dict)
    #: The module rules in force whose type is bundled as a module (Text, Data, CompiledWasm):
    #: (type, globs), in order; the JavaScript types are esbuild's to bundle.
    rules: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: The config's ``tsconfig``, absolute; None: esbuild finds tsconfig.json beside the sources.
    tsconfig: str | None = None
    #: With the config's ``no_bundle``: ``baseDir`` (absolute: base_dir, else main's folder), where
    #: the Worker's modules are found and named from, and the module rules in force of the types
    #: workerd loads, (type, globs) in order; the host loads the entry and every file the rules
    #: match as a module list, as wrangler uploads them. None: the Worker is bundled.
    no_bundle: Mapping[str, Any] | None = None
    #: When the config puts Cloudflare Access in front of the Worker: the prefix of the request
    #: headers Access sets (``ACCESS_HEADER_PREFIX``); a read of one the request lacks is
    #: UNSUPPORTED (``access_identity``). None without an ``access`` section.
    access_header_prefix: str | None = None
    #: The CPU time one invocation may use before Cloudflare stops it (the config's
    #: ``limits.cpu_ms``, else Cloudflare's documented 30 s): the host's watchdog stops an
    #: invocation past it and the run records it ``timed_out``.
    cpu_limit_ms: int = wrangler.CPU_MS_DEFAULT
    #: The Worker project's folder (the config's; the user's config's when a build redirects it
    #: to a generated one): stack positions are shown relative to it (``src/index.ts:12``), so
    #: no host path reaches a report.
    root: str
    #: The callee Workers run in the isolate with the Worker (``eutaxy.cloudflare.callee``), in
    #: the order their steps were read: each one's binding, entry, export, props and env view.
    callees: tuple[Callee, ...] = ()

    def __attrs_post_init__(self) -> None:
        assert Path(self.entry).is_absolute(), self.entry
        assert Path(self.root).is_absolute(), self.root
        assert all(Path(spec).is_absolute() for spec in self.specs), self.specs
        assert set(self.ladders) == set(faults.RUNTIME_LADDERS), sorted(self.ladders)
        assert self.compatibility_date, "prepare_worker refuses a config without compatibility_date"
        for step in self.setup:
            assert bindings.kind_of_step(step["kind"]) is None, f"a {step['kind']} step belongs in its kind's entry"
        for kind in bindings.registered():
            entry = self.kinds[kind.name]
            assert all(binding["setup"] is None or binding["setup"]["kind"] == kind.setup_step for binding in entry["bindings"].values()), entry
        assert set(self.kinds) == {kind.name for kind in bindings.registered()}, sorted(self.kinds)
        # A trap and a binding a kind's runtime record stands in for (a queue producer's) would claim one env name.
        names = [name for _, name in self.bindings] + [
            name
            for kind in bindings.registered()
            if kind.miniflare_option is None and kind.env_bindings
            for name in self.kinds[kind.name]["bindings"]
        ]
        assert len(names) == len(set(names)), f"a binding is listed twice: {names}"

    def to_data(self) -> dict[str, Any]:
        return {
            "op": "load",
            "worker": {
                "entry": self.entry,
                "specs": list(self.specs),
                "compatibilityDate": self.compatibility_date,
                "compatibilityFlags": list(self.compatibility_flags),
                "ladders": {name: list(ladder) for name, ladder in self.ladders.items()},
                "kinds": {name: dict(entry) for name, entry in self.kinds.items()},
                "vars": dict(self.vars),
                "bindings": [{"kind": kind, "name": name} for kind, name in self.bindings],
                "define": dict(self.define),
                "alias": dict(self.alias),
                "rules": [{"type": kind, "globs": list(globs)} for kind, globs in self.rules],
                "tsconfig": self.tsconfig,
                "noBundle": (
                    {"baseDir": self.no_bundle["baseDir"], "rules": [{"type": kind, "globs": list(globs)} for kind, globs in self.no_bundle["rules"]]}
                    if self.no_bundle is not None
                    else None
                ),
                "accessHeaderPrefix": self.access_header_prefix,
                "cpuLimitMs": self.cpu_limit_ms,
                "root": self.root,
                "callees": [callee.to_data() for callee in self.callees],
            },
            "setup": [dict(step) for step in self.setup],
        }


@attrs.frozen(kw_only=True)
class WorkerSpec:
    """A checked Worker, ready to load: the host's ``load`` message and what it assumes."""

    config: wrangler.WranglerConfig
    entry: Path
    #: The host's load request.
    load: LoadMessage
    assumptions: tuple[str, ...]
    #: Secret name -> value, for ``variables.redact``; never printed.
    secrets: Mapping[str, str] = attrs.field(factory=dict, repr=False)

    def load_message(self) -> dict[str, Any]:
        """The load request's data (``LoadMessage.to_data``, its only producer)."""
        return self.load.to_data()


def prepare_worker(scenario: Mapping[str, Any]) -> WorkerSpec:
    """Resolve and check the scenario's Worker, config and setup."""
    root = Path(scenario.get("root") or ".")
    worker = scenario.get("worker") or {}
    config_path = _resolve(root, worker["config"]) if worker.get("config") else wrangler.find_config(root)
    config = wrangler.read_config(config_path, env=worker.get("env"))
    entry = _entry(root, worker, config)
    # The callees' bindings and vars join the caller's under qualified names (inventory/DB), so
    # every kind checks, loads and states both Workers' bindings as one config's.
    config, callees = with_callees(root, config, scenario.get("setup") or [])
    if config.compatibility_date is None:
        raise UserError(
            f"{config.path}: compatibility_date is missing; set it (for example \"2026-01-01\") so every run "
            "uses the same runtime behaviour"
        )
    for kind in bindings.registered():
        kind.check_config(config)
    setup = tuple(
        _setup_step(root, config, step, index) for index, step in enumerate(scenario.get("setup") or []) if step.get("kind") != CALLEE_STEP
    )
    for kind in bindings.registered():
        if kind.setup_step is None:
            continue
        stepped = [step["binding"] for step in setup if step.get("kind") == kind.setup_step]
        for binding in stepped:
            if stepped.count(binding) > 1:
                raise UserError(
                    f"the scenario's setup has {stepped.count(binding)} {kind.setup_step} steps for {kind.label} binding {binding!r}"
                )
    steps = {
        kind.name: [step for step in setup if kind.setup_step is not None and step.get("kind") == kind.setup_step]
        for kind in bindings.registered()
    }
    kinds = {kind.name: kind.load_entry(config, steps[kind.name]) for kind in bindings.registered()}
    drive = scenario.get("drive") or {}
    _check_drive(config, drive)
    _check_invariant_targets(scenario, config, kinds)
    env_values = variables.worker_variables(
        config.vars,
        config.path.name,
        variables.secret_files(config.path, config.environment),
        worker.get("vars") or {},
        worker.get("secrets") or {},
    )
    load = LoadMessage(
        entry=str(entry),
        specs=tuple(_specs(scenario)),
        compatibility_date=config.compatibility_date,
        compatibility_flags=tuple(config.compatibility_flags),
        ladders=faults.RUNTIME_LADDERS,
        kinds=kinds,
        vars=dict(env_values.values),
        bindings=tuple(_unmodelled_bindings(config, callees)),
        setup=tuple(dict(step) for step in setup if bindings.kind_of_step(step.get("kind")) is None),
        define=dict(config.define),
        alias=dict(config.alias),
        rules=tuple((rule.type, rule.globs) for rule in config.module_rules if rule.type in _MODULE_RULE_TYPES),
        tsconfig=str(config.tsconfig) if config.tsconfig is not None else None,
        no_bundle=_no_bundle_entry(config, entry, scenario),
        access_header_prefix=ACCESS_HEADER_PREFIX if "access" in config.sections else None,
        cpu_limit_ms=config.cpu_limit_ms,
        root=_shown_root(config, callees),
        callees=callees,
    )
    return WorkerSpec(
        config=config,
        entry=entry,
        load=load,
        assumptions=tuple(
            _assumptions(config, drive, steps)
            + [sentence for sentence in [env_values.assumption()] if sentence]
            + _io_assumptions(scenario)
            + _concurrency_assumptions(scenario, config)
            + _section_assumptions(config)
            + [sentence for sentence in [no_bundle_assumption(config)] if sentence]
            + ([callee_assumption(callees, config)] if callees else [])
            + [sentence for sentence in [_error_serialization_assumption(config, drive, steps, callees)] if sentence]
        ),
        secrets=dict(env_values.secrets),
    )


def _error_serialization_assumption(
    config: wrangler.WranglerConfig, drive: Mapping[str, Any], steps: Mapping[str, list[dict[str, Any]]], callees: Sequence[Callee]
) -> str | None:
    """The sentence for the sides of an RPC call with no config of their own whose caller has
    ``enhanced_error_serialization`` on: a scripted service binding's Worker (its caller the
    loaded Worker, or a callee for its own binding), the rpc drive's caller (the loaded Worker's)."""
    own = enhanced_error_serialization(config.compatibility_date, config.compatibility_flags)
    callers = {one.name: bool(one.errors["callee"]) for one in callees}
    # A scripted binding's caller: the loaded Worker, or the callee whose own binding it is (inventory/PARTNER).
    owners = {step["binding"]: owner_of(step["binding"]) for step in steps.get("service", [])}
    scripted = sorted(binding for binding, owner in owners.items() if (own if owner is None else callers.get(owner, False)))
    return error_serialization_assumption(config.path.name, own, scripted=scripted, rpc_drive=drive.get("kind") == "rpc")


def compatibility_date_assumption(config_name: str, dates: Mapping[str, str]) -> str | None:
    """The verdict's sentence when the runtime ran an older date than the config asks (the host's answer), else None.

    The host applies the rule (host/load.mjs ``supportedDate``): a date newer than the pinned
    workerd supports runs with the newest it supports, as wrangler does.
    """
    asked, used, newest = dates["asked"], dates["used"], dates["newest"]
    assert used <= asked and used <= newest, dates
    if used == asked:
        return None
    return (
        f"compatibility_date {asked} in {config_name} is newer than the pinned workerd supports (its newest is "
        f"{newest}), so runs use {used}, as wrangler does; behaviour behind a compatibility flag dated after "
        f"{used} is not what production gives the Worker."
    )


def _concurrency_assumptions(scenario: Mapping[str, Any], config: wrangler.WranglerConfig) -> list[str]:
    sentences = []
    concurrency = (scenario.get("bounds") or {}).get("maxConcurrentInvocations") or 1
    if concurrency > 1:
        sentences.append(
            f"Up to {concurrency} invocations are in flight at once, interleaving at their asynchronous effects "
            "(each a turn; the pick comes from the run's turn stream); synchronous effects (acks, the response) "
            "and the platform's implicit acks are part of the turn that reached them. Each invocation runs in its "
            "own AsyncLocalStorage context (the nodejs_als flag is added when the Worker has neither it nor "
            "nodejs_compat)."
        )
        for kind in bindings.registered():
            if kind.resources(config):
                sentences += kind.concurrency_assumptions(config)
    if scenario.get("specs"):
        sentences.append(
            "Calls into the specs modules' exports from outside the module are recorded as Core decisions; "
            "calls between a module's own functions are not, and the core is assumed pure and synchronous."
        )
    return sentences


def _specs(scenario: Mapping[str, Any]) -> list[str]:
    root = Path(scenario.get("root") or ".")
    specs = []
    for index, item in enumerate(scenario.get("specs") or []):
        path = _resolve(root, str(item))
        if not path.is_file():
            raise UserError(f"specs[{index}]: the core module {path} does not exist")
        specs.append(str(path))
    return specs


def _section_assumptions(config: wrangler.WranglerConfig) -> list[str]:
    """What the config's sections Eutaxy does not model mean for a verdict (config_sections' table)."""
    sentences = config_sections.assumptions(config.path.name, config.sections)
    trapped = _unmodelled_bindings(config)
    if trapped:
        names = ", ".join(f"{name} ({kind})" for kind, name in trapped)
        sentences.append(
            f"Bindings Eutaxy does not model stand in as traps, so a run that touches one is UNSUPPORTED: {names}."
        )
    if "access" in config.sections:
        sentences.append(
            f"Cloudflare Access (the access section of {config.path.name}) is not in front of the Worker: a request "
            "carries an Access identity (a Cf-Access-* header) only where the scenario's request gives it one, and a "
            "run in which the Worker reads one its request lacks, or reads ctx.access, is UNSUPPORTED (access_identity)."
        )
    return sentences


def _no_bundle_entry(config: wrangler.WranglerConfig, entry: Path, scenario: Mapping[str, Any]) -> dict[str, Any] | None:
    """The load message's ``noBundle`` for a no_bundle config (its modules' folder and rules), else None."""
    if not config.no_bundle:
        return None
    base_dir = config.base_dir or entry.parent
    if not entry.is_relative_to(base_dir):
        raise UserError(f"{config.path}: no_bundle loads main's folder's modules, but main {entry} is outside base_dir {base_dir}")
    if scenario.get("specs"):
        raise UserError(
            f"{config.path}: the scenario names specs modules, whose calls are recorded by wrapping them in the bundle, "
            "but no_bundle loads the Worker's modules as they are; remove specs or check the Worker's sources bundled"
        )
    rules = tuple((rule.type, rule.globs) for rule in config.module_rules if rule.type in _UNBUNDLED_MODULE_TYPES)
    return {"baseDir": str(base_dir), "rules": rules}


def no_bundle_assumption(config: wrangler.WranglerConfig) -> str | None:
    """The verdict's sentence for a Worker loaded as its modules (no_bundle, or a build's generated config), else None."""
    if not config.no_bundle:
        return None
    rules = "; ".join(f"{rule.type} {', '.join(rule.globs)}" for rule in config.module_rules if rule.type in _UNBUNDLED_MODULE_TYPES)
    loaded = (
        f"its main and every file beside it that a module rule matches ({rules}) are loaded as a module list, as "
        "wrangler uploads them with no_bundle, not bundled again"
    )
    if config.redirected_from is not None:
        # Named from the project's folder, so the sentence is the same on every machine.
        project = config.redirected_from.parent
        generated = config.path.relative_to(project).as_posix() if config.path.is_relative_to(project) else config.path.name
        return (
            f"The Worker is checked from its build output: {config.redirected_from.name} is redirected by "
            f"{wrangler.DEPLOY_CONFIG.as_posix()} to the generated {generated} (the Cloudflare Vite plugin's, as "
            f"wrangler deploy reads it); {loaded}. The sources are not built here: a change to them is checked after "
            "the next build."
        )
    return f"The Worker is not bundled (no_bundle in {config.path.name}): {loaded}."


def _shown_root(config: wrangler.WranglerConfig, callees: tuple[Callee, ...]) -> str:
    """The folder stack positions are shown from: the Worker project's (its config's), or with
    callees the folder holding every Worker's, so each line names its Worker's file (orders/worker.ts)."""
    folders = [str((config.redirected_from or config.path).parent), *(str(one.config.path.parent) for one in callees)]
    return os.path.commonpath(folders) if callees else folders[0]


def _unmodelled_bindings(config: wrangler.WranglerConfig, callees: tuple[Callee, ...] = ()) -> list[tuple[str, str]]:
    """Every binding the runtime does not model, as (kind, name): the registered kinds' (a Durable
    Object binding of another Worker's class), then the others in the config's order; a service
    binding a callee runs is the callee's."""
    trapped = [pair for kind in bindings.registered() for pair in kind.unmodelled(config)]
    modelled = {kind.name for kind in bindings.registered()}
    run = {callee.binding for callee in callees}
    trapped += [(binding.kind, binding.name) for binding in config.bindings if binding.kind not in modelled and binding.name not in run]
    return trapped


def _resolve(root: Path, relative: str) -> Path:
    return (root / relative).resolve()


def _entry(root: Path, worker: Mapping[str, Any], config: wrangler.WranglerConfig) -> Path:
    if worker.get("entry"):
        entry = _resolve(root, worker["entry"])
        if not entry.is_file():
            raise UserError(f"the scenario's worker.entry {worker['entry']!r} does not exist ({entry})", near=worker["entry"])
        return entry
    if config.main is None:
        raise UserError(f"{config.path}: no main entry; set main in the config or worker.entry in the scenario")
    return config.main


def _setup_step(root: Path, config: wrangler.WranglerConfig, step: Mapping[str, Any], index: int) -> dict[str, Any]:
    resolved = dict(step)
    kind = bindings.kind_of_step(step.get("kind"))
    if kind is not None:
        binding = step.get("binding")
        declared = kind.resources(config)
        if binding not in declared:
            known = nearest_names(str(binding), declared, what=f"its {kind.plural}")
            trapped = any(name == binding for _, name in kind.unmodelled(config))
            where = (
                f"declares in {kind.section} as a binding Eutaxy does not run (it stands in as a trap)"
                if trapped
                else f"does not declare in {kind.section}"
            )
            raise UserError(
                f"setup[{index}]: {kind.setup_step} names {kind.label} binding {binding!r}, which {config.path.name} {where}; {known}",
                near=str(binding),
            )
    # A step's path is the scenario's, relative to its folder: a file, or a directory its kind reads.
    path = _resolve(root, step["path"]) if isinstance(step.get("path"), str) and step["path"] else None
    if path is not None and not path.exists():
        raise UserError(f"setup[{index}]: {step['kind']} file {step['path']!r} does not exist ({path})", near=step["path"])
    if kind is not None:
        # The kind checks the step with its path resolved; messages name the path as written.
        written = f", {step['path']!r}" if path is not None else ""
        checked = step if path is None else {**step, "path": str(path)}
        resolved = kind.check_config_step(config, checked, f"setup[{index}]: {kind.setup_step}({step.get('binding')!r}{written})")
    if path is not None:
        resolved["path"] = str(path)
    return resolved


def _check_drive(config: wrangler.WranglerConfig, drive: Mapping[str, Any]) -> None:
    """The drive is checked by the kind whose drive it is (the queue consumer's queue drive), if any;
    a cron drive's expression must be one of the config's Cron Triggers."""
    if drive.get("kind") == "cron":
        expression = drive.get("cron")
        if expression not in config.crons:
            listed = f"it lists {', '.join(repr(item) for item in config.crons)}" if config.crons else "it has no triggers.crons"
            raise UserError(
                f"the scenario drives Cron Trigger {expression!r}, but {config.path.name}'s triggers.crons does not list it; {listed}",
                near=str(expression),
            )
    for kind in bindings.registered():
        if kind.drive is not None and kind.drive == drive.get("kind"):
            kind.check_drive(config, drive)


def _invariant_targets(invariant: Mapping[str, Any]) -> Iterable[tuple[str, str]]:
    """Each ``(field, target)`` an invariant selects effects or queries state of."""
    for field in ("selector", "query", "target"):
        value = invariant.get(field)
        if isinstance(value, Mapping) and isinstance(value.get("target"), str):
            yield field, value["target"]
    state = invariant.get("state")
    if isinstance(state, Mapping):
        for field in ("read", "write"):
            value = state.get(field)
            if isinstance(value, Mapping) and isinstance(value.get("target"), str):
                yield f"state.{field}", value["target"]


def _check_invariant_targets(scenario: Mapping[str, Any], config: wrangler.WranglerConfig, entries: Mapping[str, Any]) -> None:
    """An invariant over a binding, queue or external the Worker does not have would hold vacuously.

    Targets whose kind this build knows are checked against the config and the scenario: a
    registered kind's (``D1:<binding>``, ``Queue:<queue>``: one its kind may not touch without
    a setup step also needs one, ``entries`` being the kinds' load entries; kinds sharing a
    label share its names), ``Fetch:<external>`` and ``DO:<binding>``; a pattern (``D1:*``) is not.
    """
    known: dict[str, tuple[list[str], str]] = {
        "Fetch": ([item["name"] for item in scenario.get("externals") or []], "the scenario's externals"),
    }
    kinds: dict[str, list[bindings.BindingKind]] = {}
    for each in bindings.registered():
        if not each.checks_targets:
            continue
        kinds.setdefault(each.label, []).append(each)
        names, what = known.setdefault(each.label, ([], f"the {each.plural} of {config.path.name}"))
        names += each.targets(config)
    for index, invariant in enumerate(scenario.get("invariants") or []):
        for field, target in _invariant_targets(invariant):
            kind, colon, name = target.partition(":")
            if not colon or kind not in known or "*" in target:
                continue
            names, what = known[kind]
            label = f"invariants[{index}] ({invariant.get('name')!r}): its {field}"
            if name not in names:
                raise UserError(
                    f"{label} names {target}, which the Worker does not have; {nearest_names(name, names, what=what)}",
                    near=name,
                )
            for registered in kinds.get(kind, []):
                problem = registered.target_problem(config, field, name)
                if problem is not None:
                    raise UserError(f"{label} {problem}", near=str(invariant.get("name")))
            for registered in kinds.get(kind, []):
                if registered.without_setup != "unsupported" or name not in entries[registered.name]["bindings"]:
                    continue
                if entries[registered.name]["bindings"][name]["setup"] is None:
                    raise UserError(
                        f"{label} names {target}, but no setup step resets that {registered.noun}, so no run can touch it; "
                        f"add {registered.setup_hint(name)} to the scenario's setup",
                        near=str(invariant.get("name")),
                    )


#: What a verdict over the websocket drive assumes (docs/cloudflare.md, WebSockets).
WEBSOCKET_ASSUMPTION = (
    "WebSocket connections use the Hibernation API: each is opened through the Worker's fetch and accepted by a "
    "Durable Object with ctx.acceptWebSocket; each message is delivered by calling the object's webSocketMessage "
    "(crash_before, crash_after, error), and a crash there drops the instance while the connection survives, found "
    "again by its tags and attachment as across hibernation; a crash inside the object's code resets it and "
    "disconnects its sockets. A socket whose 101 answer a fault lost is closed to the object as workerd closes a "
    "peer gone without a close frame (webSocketClose with 1006, an event of the object's own). What the object "
    "sends is recorded at the end of the "
    "run in arrival order; the client never closes a connection during the run, and what webSocketClose does at "
    "the teardown after the snapshot is not checked."
)


def _io_assumptions(scenario: Mapping[str, Any]) -> list[str]:
    """The http drive's caller, background work and the declared externals, as a verdict lists them."""
    drive = scenario.get("drive") or {}
    sentences = [caller_assumption(drive)] if drive.get("kind") == "http" else []
    if drive.get("kind") == "websocket":
        sentences.append(WEBSOCKET_ASSUMPTION)
    if drive.get("kind") == "cron":
        sentences.append(cron_assumption(drive))
    if drive.get("kind") == "rpc":
        sentences.append(rpc_assumption(drive))
    sentences.append(
        "Work passed to ctx.waitUntil runs after the handler returned and never changes the response or the "
        "acknowledgement; at one background point the cut_off fault loses work not yet started, and an effect "
        "in flight commits without its continuation."
    )
    return sentences + externals.assumptions(scenario.get("externals") or [])


def _kind_assumptions(config: wrangler.WranglerConfig, steps: Mapping[str, list[dict[str, Any]]], *, last: bool = False) -> list[str]:
    """What a verdict assumes of each registered binding kind the Worker declares, kinds in
    registration order: those listed with the kinds, or (``last``) those listed last."""
    sentences = []
    for kind in bindings.registered():
        if kind.assumptions_last == last and kind.resources(config):
            sentences += kind.assumptions(config, steps[kind.name])
    return sentences


def _production_only_assumption(config: wrangler.WranglerConfig, drive: Mapping[str, Any]) -> str:
    """What production does that no local run can, naming only what the Worker has (D1, a consumed queue)."""
    unseen = [phrase for kind in bindings.registered() if (phrase := kind.production_only_of(config, drive)) is not None]
    return f"Production-only behaviour ({', '.join([*unseen, 'real latency'])}) is out of scope."


def _reset_assumption(config: wrangler.WranglerConfig) -> str:
    """The reset sentence, naming how each kind of binding the Worker declares is reset."""
    resets = [
        (kind.reset_subject, kind.reset_phrase)
        for kind in bindings.registered()
        if kind.reset_phrase and kind.resources(config)
    ]
    how = "; ".join(f"{kind}: {reset}" for kind, reset in resets)
    return (
        "Miniflare keeps binding storage across runs in one host, so Eutaxy resets every binding a setup step "
        f"names before each run{f' ({how})' if how else ''}."
    )


def _assumptions(config: wrangler.WranglerConfig, drive: Mapping[str, Any], steps: Mapping[str, list[dict[str, Any]]]) -> list[str]:
    sentences = [
        (
            "The Worker's modules are loaded beside Eutaxy's runtime (no_bundle) and run in the same workerd isolate, "
            if config.no_bundle
            else "The Worker is bundled with Eutaxy's runtime into one module and runs in the same workerd isolate, "
        )
        + "so the runtime's patches of Date, Math.random, crypto, timers and fetch apply to it.",
        _reset_assumption(config),
        "Module state cannot be reset between runs, so before BOUNDED the first runs are replayed in reverse "
        "order and any difference is UNSUPPORTED (module_state_leak).",
        *_kind_assumptions(config, steps),
        _production_only_assumption(config, drive),
    ]
    for kind in bindings.registered():
        if kind.drive is not None and kind.drive == drive.get("kind"):
            sentences += kind.drive_assumptions(config, drive)
    if config.cpu_ms is not None:
        sentences.append(
            f"An invocation is stopped once it has used limits.cpu_ms ({config.cpu_ms} ms, from {config.path.name}) of "
            "CPU time without reaching its next effect, as Cloudflare stops it, and counts as timed out (its messages "
            "are retried, an http caller gets no answer); the time is workerd's CPU time on this machine, at least "
            "200 ms, and the effect hang bound stops it first when that is shorter (cpu_bound)."
        )
    if config.environment is not None:
        sentences.append(
            f"The Worker is checked as environment {config.environment!r} of {config.path.name} (Worker name "
            f"{config.name}): its keys replace the top level's, inheritable ones come from the top level, and its vars "
            "and bindings are its own, as wrangler applies an environment."
        )
    sentences += _kind_assumptions(config, steps, last=True)
    return sentences

