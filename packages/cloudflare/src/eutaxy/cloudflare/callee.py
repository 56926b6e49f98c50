"""Callee Workers run for real: the Worker behind a service binding, in the caller's isolate.

``callee("INVENTORY", config="../inventory/wrangler.jsonc")`` replaces the script of a service
binding with the Worker its wrangler config describes. The config's ``name`` (which the
binding's ``service`` names) qualifies everything of the callee's: its ``DB`` is ``inventory/DB``
in setup steps (``d1_schema("inventory/DB", ...)``), effect targets (``D1:inventory/DB``), state
queries and snapshots; the caller's bindings keep their bare names. Its vars are qualified too.

:func:`with_callees` reads each callee's config (JSON or JSONC; a TOML one is refused) and
answers the caller's config with the callees' bindings and vars added under their qualified
names, so every binding kind's record checks setup steps, builds its load entry and states its
assumptions over both Workers without knowing of callees. A resource both configs name (the same
D1 ``database_id``, KV namespace id or R2 bucket; a queue both produce onto) is one resource under
the caller's binding: the callee's name is an alias of it, so the callee's ``env.DB`` is the
caller's ``DB`` and its effects carry the caller's name. A callee's own service binding is run
by a further callee (``callee("inventory/PARTNER", ...)``, its bindings qualified by that
Worker's name) or stands in as the binding the caller's config would give it; a cycle of
callees is refused, named.

A callee's Durable Object and Workflow classes run in the isolate too: the bundle exports each
under its qualified alias (``inventory.Counter``: workerd names an object's storage folder by its
class, so no ``/``), wrapped with the callee's env, and its binding is qualified like any other
(``inventory/COUNTER`` of class ``inventory.Counter``). A class another of the Workers binds by
``script_name`` (the caller's ``{"class_name": "Counter", "script_name": "inventory"}``) is that
Worker's class under its alias, so the binding runs it instead of standing in as a trap, and a
callee's binding of the same class is an alias of it, by the rule above.

Each callee is a :class:`Callee` in the load message: the binding the caller (or a callee,
qualified) reaches it by, its entry module (bundled into the caller's bundle), the export its
calls construct, what the caller's binding carries as ``ctx.props``, its env: each of its
own names -> the name in the isolate's env it reads (qualified, or the caller's for an alias),
and its classes the isolate runs: each alias -> the class its module exports.
The runtime (runtime/bindings/callee.mjs) hosts each call through the binding as one effect.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence, cast

import attrs

from eutaxy.core.errors import UserError, nearest_names
from eutaxy.core.plain_data import json_problem

from . import bindings, wrangler
from .bindings.service import RUN_BY, owner_of, qualified
from .rpc import enhanced_error_serialization

if TYPE_CHECKING:
    from .bindings import DraftContext

__all__ = ["CALLEE_STEP", "Callee", "callee", "callee_assumption", "draft_callee", "with_callees"]

#: The setup step's kind (and its helper's name).
CALLEE_STEP = "callee"

#: The service binding section's kind, as the wrangler reader names its bindings.
_SERVICE = "service"

#: Binding kinds of a callee's config that are not run for it: what a callee consumes is its
#: own drive (a scenario drives one Worker), and its static assets answer nobody here.
_NOT_CARRIED = frozenset({"queue_consumer", "assets"})

#: Binding kinds whose resource is a class of a Worker's own (``class_name``, or another Worker's
#: by ``script_name``): a callee's are run under their qualified aliases (:func:`class_alias`).
_CLASS_KINDS = frozenset({"durable_object", "workflow"})

#: The field naming the Worker whose class a class kind's binding binds, when not its own.
_SCRIPT_NAME = "script_name"


def callee(binding: str, config: str, *, entrypoint: str | None = None, props: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Run the Worker behind service binding ``binding`` for real, from its wrangler ``config``.

    Args:
        binding: the caller's service binding (``INVENTORY``), or a callee's own, qualified by its
            Worker's name (``inventory/PARTNER``).
        config: the callee's wrangler config (JSON or JSONC), relative to the scenario; its ``main``
            is the callee's entry and its ``name`` qualifies its bindings.
        entrypoint: the named export a call constructs (a class extending WorkerEntrypoint), as the
            binding's ``entrypoint`` in the caller's config names it; None: the default export.
        props: what the binding carries to the callee's ``ctx.props`` (plain data); None: ``{}``.

    Returns:
        The setup step as plain data (``kind: "callee"``).
    """
    if not isinstance(binding, str) or not binding or binding.count("/") > 1 or binding.startswith("/") or binding.endswith("/"):
        raise UserError(f"callee: binding must name a service binding (INVENTORY, or a callee's own as inventory/PARTNER), got {binding!r}")
    if not isinstance(config, str) or not config:
        raise UserError(f"callee({binding!r}): config must be the path of the callee's wrangler config, got {config!r}")
    if entrypoint is not None and (not isinstance(entrypoint, str) or not entrypoint.isidentifier()):
        raise UserError(f"callee({binding!r}): entrypoint must name an export of the callee (an identifier) or be None, got {entrypoint!r}")
    given = dict(props or {})
    problem = json_problem(given, "props", tuples=False, safe_integers=True)
    if problem is not None:
        raise UserError(f"callee({binding!r}): {problem}")
    return {"kind": CALLEE_STEP, "binding": binding, "config": config, "entrypoint": entrypoint, "props": given}


@attrs.frozen(kw_only=True)
class Callee:
    """One callee Worker as the isolate runs it."""

    #: The env name its caller reaches it by: the caller's binding, or a callee's own, qualified.
    binding: str
    #: The Worker's name (its config's ``name``), which qualifies its bindings.
    name: str
    #: The Worker that calls it (its config's ``name``; the caller's may be None).
    caller: str | None
    config: wrangler.WranglerConfig
    #: Its entry module, absolute.
    entry: Path
    entrypoint: str | None
    props: Mapping[str, Any]
    #: Each of its own env names -> the env name in the isolate it reads.
    env: Mapping[str, str]
    #: Its own names that are aliases of the caller's resources: own name -> the caller's binding.
    aliases: Mapping[str, str]
    #: Its bindings no record runs, as (kind, own name): they stand in as traps under their qualified names.
    trapped: tuple[tuple[str, str], ...] = ()
    #: The Miniflare options of its own bindings under its own names, on the resources the
    #: isolate gives them (its qualified ones', an alias's the caller's; a class, the isolate's
    #: export of it): for the Worker of its own the differential runner's raw side calls through
    #: a real service binding.
    miniflare: Mapping[str, Mapping[str, str]] = attrs.field(factory=dict)
    #: Its classes the isolate runs (a binding of any of the Workers names them): each alias
    #: (``inventory.Counter``) -> the class its entry exports (``Counter``).
    classes: Mapping[str, str] = attrs.field(factory=dict)
    #: Whether its caller and it serialize errors crossing RPC the enhanced way (from their
    #: compatibility dates and flags, :func:`~eutaxy.cloudflare.rpc.enhanced_error_serialization`):
    #: the caller's None when it is the loaded Worker, whose setting the runtime asks workerd for.
    errors: Mapping[str, bool | None] = attrs.field(factory=lambda: {"caller": None, "callee": False})

    @property
    def owner(self) -> str | None:
        """The callee Worker whose own service binding it is; None for the loaded Worker's."""
        return owner_of(self.binding)

    def to_data(self) -> dict[str, Any]:
        return {
            "binding": self.binding,
            "owner": self.owner,
            "miniflare": {option: dict(values) for option, values in self.miniflare.items()},
            "vars": dict(self.config.vars),
            "name": self.name,
            "entry": str(self.entry),
            "entrypoint": self.entrypoint,
            "props": dict(self.props),
            "env": dict(self.env),
            "classes": dict(self.classes),
            "errors": dict(self.errors),
        }


def class_alias(worker: str, class_name: str) -> str:
    """A callee's class as the isolate exports and binds it: ``inventory.Counter`` (a class name
    is an identifier, so the dot says whose it is; workerd names an object's storage folder by
    its class, which may hold no ``/``)."""
    return f"{worker}.{class_name}"


def with_callees(
    root: Path, config: wrangler.WranglerConfig, setup: Sequence[Mapping[str, Any]]
) -> tuple[wrangler.WranglerConfig, tuple[Callee, ...]]:
    """The caller's config with every callee's bindings and vars added under qualified names, and the callees.

    ``setup`` is the scenario's whole setup; its ``callee`` steps are read here, each naming a
    service binding of the caller or of a callee read before it (any depth). Raises UserError
    for a binding no config declares as a service binding, a config whose ``name`` is not the
    binding's ``service``, a cycle, or a callee's class in none of its migrations.
    """
    steps = [(index, step) for index, step in enumerate(setup) if step.get("kind") == CALLEE_STEP]
    if not steps:
        return config, ()
    merged = _Merged(bindings=list(config.bindings), vars=dict(config.vars), settings=dict(config.kind_settings))
    #: Worker name -> (its config, the chain of names from the caller to it).
    workers: dict[str | None, tuple[wrangler.WranglerConfig, tuple[str, ...]]] = {None: (config, (config.name or "",))}
    callees: list[Callee] = []
    waiting = list(steps)
    while waiting:
        ready = [(index, step) for index, step in waiting if owner_of(step["binding"]) in workers]
        if not ready:
            index, step = waiting[0]
            owner = owner_of(step["binding"])
            raise UserError(
                f"setup[{index}]: callee names {step['binding']!r}, a service binding of Worker {owner!r}, but no callee step "
                f"runs a Worker named {owner!r}; {nearest_names(str(owner), [name for name in workers if name], what='the callees')}",
                near=step["binding"],
            )
        for index, step in ready:
            waiting.remove((index, step))
            one = _read_callee(root, index, step, workers, merged)
            callees.append(one)
    if config.no_bundle:
        raise UserError(
            f"{config.path}: the scenario runs callee Workers, which are bundled with the caller, but no_bundle loads "
            "the caller's modules as they are; check the Worker's sources bundled"
        )
    # A service binding a callee runs is the callee's: the service kind leaves it out (service.RUN_BY).
    run = {one.binding: one.name for one in callees}
    merged_bindings = [
        attrs.evolve(one, fields={**one.fields, RUN_BY: run[one.name]}) if one.kind == _SERVICE and one.name in run else one for one in merged.bindings
    ]
    joined = attrs.evolve(config, bindings=tuple(merged_bindings), vars=merged.vars, kind_settings=merged.settings)
    # Each callee's classes the isolate runs: those a binding the kinds run names, by alias.
    kinds = {kind.name: kind for kind in bindings.registered()}
    aliases = {alias for kind in _CLASS_KINDS for alias in kinds[kind].resources(joined).values()}
    callees = [attrs.evolve(one, classes=_classes_of(one.name, aliases)) for one in callees]
    return joined, tuple(callees)


def _classes_of(worker: str, aliases: set[str]) -> dict[str, str]:
    """Of the class aliases the isolate runs, ``worker``'s (:func:`class_alias`), each -> its own
    class name (an identifier, so a Worker name ending like another's is no match)."""
    prefix = class_alias(worker, "")
    return {alias: alias[len(prefix):] for alias in sorted(aliases) if alias.startswith(prefix) and alias[len(prefix):].isidentifier()}


@attrs.define
class _Merged:
    """The caller's config as the callees read so far join it: its bindings, vars and kind settings."""

    bindings: list[wrangler.Binding]
    vars: dict[str, Any]
    settings: dict[str, Any]


def _read_callee(
    root: Path,
    index: int,
    step: Mapping[str, Any],
    workers: dict[str | None, tuple[wrangler.WranglerConfig, tuple[str, ...]]],
    merged: _Merged,
) -> Callee:
    binding = step["binding"]
    owner = owner_of(binding)
    owner_config, chain = workers[owner]
    own_name = binding.partition("/")[2] if owner is not None else binding
    where = f"setup[{index}]: callee({binding!r})"
    services = {one.name: one for one in owner_config.bindings if one.kind == _SERVICE}
    service = services.get(own_name)
    if service is None:
        raise UserError(
            f"{where}: {owner_config.path.name} declares no service binding {own_name!r} in services; "
            f"{nearest_names(own_name, list(services), what='its service bindings')}",
            near=binding,
        )
    path = (root / step["config"]).resolve()
    if not path.is_file():
        raise UserError(f"{where}: the callee's config {step['config']!r} does not exist ({path})", near=step["config"])
    if path.suffix == ".toml":
        raise UserError(
            f"{where}: the callee's config {step['config']!r} is TOML; a callee's config is read as JSON or JSONC (wrangler.jsonc)",
            near=step["config"],
        )
    config = wrangler.read_config(path)
    if not config.name:
        raise UserError(
            f"{config.path}: the callee's config has no name; the name qualifies its bindings (name/DB), as the caller's service binding names it",
            near=step["config"],
        )
    if config.name != service.resource:
        raise UserError(
            f"{where}: {owner_config.path.name}'s service binding {own_name!r} names Worker {service.resource!r}, "
            f"but {step['config']} is Worker {config.name!r}",
            near=step["config"],
        )
    if config.name in chain:
        cycle = " -> ".join([*chain, config.name])
        raise UserError(f"{where}: a cycle of callees ({cycle}); a Worker cannot be its own callee, as the calls would never end", near=binding)
    if config.name in workers:
        raise UserError(
            f"{where}: Worker {config.name!r} is already a callee through another binding; each callee Worker is run through one binding",
            near=binding,
        )
    if config.main is None:
        raise UserError(f"{config.path}: the callee's config has no main entry", near=step["config"])
    env: dict[str, str] = {}
    aliases: dict[str, str] = {}
    trapped: list[tuple[str, str]] = []
    miniflare: dict[str, dict[str, str]] = {}
    kinds = {kind.name: kind for kind in bindings.registered()}
    for kind_name in sorted(_CLASS_KINDS):
        # Its classes' own rules (a Durable Object class in a migration), at its config's lines.
        kinds[kind_name].check_config(config)
        merged.settings[kind_name] = kinds[kind_name].callee_settings(
            merged.settings.get(kind_name), config.settings_of(kind_name), lambda class_name: class_alias(str(config.name), class_name)
        )
    names = _worker_names(workers, config.name)
    # A class of this Worker's that a Worker read before binds by script_name is run from here on.
    merged.bindings[:] = [_bound_class(one, names) for one in merged.bindings]
    for one in config.bindings:
        name = qualified(config.name, one.name)
        if one.kind in _NOT_CARRIED:
            continue
        # A callee's own service binding is scripted or run by a further callee, never an alias of another.
        kind = kinds.get(one.kind) if one.kind != _SERVICE else None
        if kind is not None:
            renamed = _bound_class(_qualified_binding(one, name, config), names)
            same = _same_resource(kind, renamed, merged.bindings)
            if kind.miniflare_option is not None and _SCRIPT_NAME not in renamed.fields:
                miniflare.setdefault(kind.miniflare_option, {})[one.name] = kind.resource_of(renamed)
            if same is not None:
                aliases[one.name] = same
                env[one.name] = same
                continue
            merged.bindings.append(renamed)
        else:
            if one.kind != _SERVICE:
                trapped.append((one.kind, one.name))
            merged.bindings.append(attrs.evolve(one, name=name))
        env[one.name] = name
    for var, value in config.vars.items():
        name = qualified(config.name, var)
        merged.vars[name] = value
        env[var] = name
    workers[config.name] = (config, (*chain, config.name))
    entrypoint = step.get("entrypoint")
    return Callee(
        binding=binding,
        name=config.name,
        caller=owner if owner is not None else workers[None][0].name,
        config=config,
        entry=config.main,
        entrypoint=entrypoint if entrypoint is not None else service.fields.get("entrypoint"),
        props=dict(step.get("props") or {}),
        env=env,
        aliases=aliases,
        trapped=tuple(trapped),
        miniflare=miniflare,
        errors={
            "caller": None if owner is None else enhanced_error_serialization(owner_config.compatibility_date, owner_config.compatibility_flags),
            "callee": enhanced_error_serialization(config.compatibility_date, config.compatibility_flags),
        },
    )


def _qualified_binding(binding: wrangler.Binding, name: str, config: wrangler.WranglerConfig) -> wrangler.Binding:
    """A callee's binding under its qualified name; a D1 database's migrations folder made absolute
    (its config's), so the reset reads the callee's migrations; a class of its own under its alias."""
    fields = dict(binding.fields)
    resource = binding.resource
    if binding.kind == "d1":
        migrations = (config.path.parent / fields.get("migrations_dir", "migrations")).resolve()
        if "migrations_dir" in fields or migrations.is_dir():
            fields["migrations_dir"] = str(migrations)
    if binding.kind in _CLASS_KINDS and _SCRIPT_NAME not in fields and resource is not None:
        resource = class_alias(str(config.name), resource)
    return attrs.evolve(binding, name=name, fields=fields, resource=resource)


def _worker_names(workers: Mapping[str | None, tuple[wrangler.WranglerConfig, tuple[str, ...]]], adding: str) -> dict[str, str | None]:
    """The Workers run by the time ``adding`` joins them, by name -> the qualifier of their class
    aliases (None for the caller, whose classes keep their names)."""
    names: dict[str, str | None] = {str(config.name): name for name, (config, _) in workers.items() if config.name}
    return {**names, adding: adding}


def _bound_class(binding: wrangler.Binding, workers: Mapping[str, str | None]) -> wrangler.Binding:
    """A class kind's binding of another Worker's class (``script_name``) that is run here, as a
    binding of that class under its alias; any other binding as it is (a Worker not run: a trap)."""
    script = binding.fields.get(_SCRIPT_NAME)
    if binding.kind not in _CLASS_KINDS or script is None or script not in workers or binding.resource is None:
        return binding
    owner = workers[script]
    fields = {field: value for field, value in binding.fields.items() if field != _SCRIPT_NAME}
    return attrs.evolve(binding, fields=fields, resource=binding.resource if owner is None else class_alias(owner, binding.resource))


def _same_resource(kind: bindings.BindingKind, binding: wrangler.Binding, known: Sequence[wrangler.Binding]) -> str | None:
    """The binding already in the isolate naming the same resource of the same kind, if any (the
    callee's binding is then an alias of it). A binding naming no resource of its own (its
    resource would be its name), or a class of a Worker not run here, is never the same as another's."""
    resource = kind.resource_of(binding)
    if resource == binding.name or _SCRIPT_NAME in binding.fields:
        return None
    for other in known:
        if other.kind == binding.kind and _SCRIPT_NAME not in other.fields and kind.resource_of(other) == resource:
            return other.name
    return None


def callee_assumption(callees: Sequence[Callee], config: wrangler.WranglerConfig) -> str:
    """The sentence a verdict lists for the callee Workers run with the caller."""
    named = ", ".join(f"{one.name} (behind {one.binding}, from {one.config.path.name})" for one in callees)
    aliases = [f"{qualified(one.name, own)} is {theirs}" for one in callees for own, theirs in one.aliases.items()]
    dates = sorted({one.config.compatibility_date or "" for one in callees} - {config.compatibility_date or ""})
    return (
        f"Callee Workers run for real in the caller's isolate: {named}. Each call through a service binding to one is one "
        "effect (Service:<binding>, its faults crash_before, ambiguous and crash_after) hosting the callee's invocation "
        "(<caller invocation>/<binding>.<method>): its entrypoint is constructed anew with its own env, its effects are "
        "its invocation's and take faults by their position in it (in a concurrent run each a turn, the caller waiting "
        "at the call), an exception it throws reaches the caller as RPC "
        "carries it (name and message, a built-in class as itself), and a crash inside it is an error thrown from the "
        "call; its waitUntil work runs before the answer crosses back; Cloudflare retries no call. Its bindings are named "
        "by the Worker's name (name/DB)"
        + (f"; one resource both Workers bind is the caller's, the callee's name an alias ({'; '.join(aliases)})" if aliases else "")
        + (
            f". A callee's Durable Object and Workflow classes run in the isolate under qualified aliases ({', '.join(classes)}), "
            "each seeing its own Worker's env; a binding of one by script_name is that class"
            if (classes := sorted(alias for one in callees for alias in one.classes))
            else ""
        )
        + ". A callee runs with the caller's compatibility date and flags and is bundled with the caller's build settings"
        + (f" (its config asks for {', '.join(dates)})" if dates else "")
        + "."
    )


#: Folders the draft never looks for a callee's config in.
_NOT_SEARCHED = frozenset({"node_modules", ".wrangler", ".git", "dist", ".venv"})

#: How deep below a folder the draft looks for a callee's config.
_SEARCH_DEPTH = 4


def draft_callee(binding: wrangler.Binding, draft: "DraftContext") -> tuple[dict[str, Any], list[str]] | None:
    """``callee(...)`` for a service binding whose Worker's wrangler config (JSON or JSONC, its
    ``name`` the binding's ``service``) the draft finds under the drafted folder or beside it (the
    folder's parent, where sibling Workers of one repository live), with the setup steps the
    callee's own bindings want under their qualified names, drafted by their kinds from the
    callee's folder; None when none is found (the binding is then scripted)."""
    if binding.resource is None:
        return None
    found = _callee_config(draft.config.path.parent, binding.resource)
    if found is None:
        return None
    draft.uses("callee")
    draft.callees.add(str(found.name))
    config_path = draft.relative(found.path)
    step: dict[str, Any] = {"kind": CALLEE_STEP, "binding": binding.name, "config": config_path, "entrypoint": None, "props": {}}
    lines = [f"callee({json.dumps(binding.name)}, config={json.dumps(config_path)}),"]
    draft.note(
        "read",
        f"service binding {binding.name}: Worker {found.name} runs for real from {config_path} (callee), its bindings "
        f"named {found.name}/<binding> in setup steps, targets and state queries",
    )
    inside = cast("DraftContext", _CalleeDraft(draft, found))
    kinds = {kind.name: kind for kind in bindings.registered()}
    # The caller's bindings of the callee's classes (script_name) run them: each wants its step.
    names: dict[str, str | None] = {str(found.name): str(found.name)}
    known = [_bound_class(one, names) for one in draft.config.bindings]
    for before, after in zip(draft.config.bindings, known, strict=True):
        if after is not before and kinds[after.kind].setup_step is not None:
            draft.uses(str(kinds[after.kind].setup_step))
            lines += kinds[after.kind].draft_setup(after, draft)[1]
    for one in found.bindings:
        kind = kinds.get(one.kind)
        if kind is None or kind.setup_step is None or one.kind in _NOT_CARRIED | {_SERVICE} or one.name not in kind.resources(found):
            continue
        renamed = _qualified_binding(one, qualified(str(found.name), one.name), found)
        if _same_resource(kind, renamed, known) is not None:
            continue  # an alias: the caller's own step sets it up
        draft.uses(kind.setup_step)
        _, more = kind.draft_setup(renamed, inside)
        lines += more
    return step, lines


def _callee_config(folder: Path, service: str) -> wrangler.WranglerConfig | None:
    """The first wrangler config (JSON or JSONC, by path) named ``service`` with a ``main``, under
    ``folder`` or its parent; one that does not read is passed over."""
    for root in (folder, folder.parent):
        for path in _configs_under(root):
            try:
                config = wrangler.read_config(path)
            except UserError:
                continue
            if config.name == service and config.main is not None:
                return config
    return None


def _configs_under(root: Path) -> list[Path]:
    """The wrangler.json and wrangler.jsonc files under ``root``, at most _SEARCH_DEPTH folders down, by path."""
    found = []
    for folder, subfolders, files in os.walk(root):
        depth = len(Path(folder).relative_to(root).parts)
        subfolders[:] = sorted(name for name in subfolders if name not in _NOT_SEARCHED and depth < _SEARCH_DEPTH)
        found += [Path(folder) / name for name in ("wrangler.json", "wrangler.jsonc") if name in files]
    return sorted(found)


class _CalleeDraft:
    """The draft as a callee's binding kinds see it: the callee's config and folder, the rest the draft's."""

    def __init__(self, draft: "DraftContext", config: wrangler.WranglerConfig) -> None:
        self._draft = draft
        self.config = config
        self.folder = config.path.parent

    def __getattr__(self, name: str) -> Any:
        return getattr(self._draft, name)
