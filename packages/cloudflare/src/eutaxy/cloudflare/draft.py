"""``eutaxy draft``: a first scenario for a Worker, from its wrangler config and its source.

The draft is a starting point that guesses nothing it cannot read. The wrangler config
(``eutaxy.cloudflare.wrangler.read_config``) gives the setup: each binding's setup step, as
its kind's record drafts it (``BindingKind.draft_setup``: a D1 binding with its schema file,
found beside the config as the seeds say, ``schema.sql``, then ``<database_name>.sql``, then
the only ``.sql`` file there). The Worker's modules,
scanned as text (``eutaxy.cloudflare.source_scan``; nothing imported, bundled or run),
give the drive for its entry point (the queue it consumes when the config has a consumer,
else the cron drive of the config's first Cron Trigger for a ``scheduled()`` handler, else
the rpc drive of the first ``WorkerEntrypoint`` class the entry exports, else ``fetch()``
over the http drive, with the Agents' routes as its example when the code calls
``routeAgentRequest``), the
externals it fetches by a literal URL, and hints for the events (the paths it routes on, the fields of the body type it reads).

What must hold and which events to send are the author's to say, so the invariants and
the drive's events are holes: ``todo(...)`` values (``eutaxy.engine.holes``) that make
loading the file fail, naming each hole and its line, until they are filled. Example
invariants for the bindings found are written as comments beside the hole. Every binding
the simulation does not proxy, every other entry point, everything the scan could not
read and every guess is a note, in the file as comments and in ``Draft.notes``.

:func:`draft_worker` builds the :class:`Draft` (plain data plus the file's text, the same
for the same files); :func:`write_draft` writes it beside the config and never replaces a
file. Every problem is a ``UserError`` naming the file.
"""

from __future__ import annotations

import json
import keyword
import os
import re
from pathlib import Path
from typing import Any

import attrs

from eutaxy.core.errors import UserError
from eutaxy.engine import bounds as engine_bounds

from . import bindings, config_sections, wrangler
from .bindings.assets import ASSETS
from .source_scan import SourceScan, body_example, scan_worker
from .variables import parse_dev_vars, secret_files

__all__ = ["Draft", "DraftNote", "draft_worker", "find_config_upward", "write_draft"]

#: The draft writes a setup step for each binding of a registered kind
#: (``eutaxy.cloudflare.bindings``) that has one: the kind's ``setup_step`` helper, called with
#: the binding's name, and the kind's notes on it (``draft_notes``); every binding of another
#: kind is noted as not proxied (a run that touches it ends UNSUPPORTED).

#: The most parent folders searched for a wrangler config when none is named.
_PARENTS_MAX = 64

#: The example http caller's resends and their delays (a guess the draft marks: :meth:`_Drafter.caller_lines`).
CALLER_RETRIES = 3
CALLER_DELAYS_MS = (1000, 5000)


@attrs.frozen(kw_only=True)
class DraftNote:
    """One thing the draft says about itself.

    ``kind``: ``read`` (what it found and where), ``guess`` (a choice it made that the
    author should check), ``unproxied`` (a binding a run cannot touch without ending
    UNSUPPORTED), ``entry_point`` (another handler the draft does not drive), ``unread``
    (what the text scan could not see).
    """

    kind: str
    text: str

    def to_data(self) -> dict[str, str]:
        return {"kind": self.kind, "text": self.text}


@attrs.frozen(kw_only=True)
class Draft:
    """A drafted scenario: where it goes, what it holds, its notes, and the file's text."""

    #: The file the draft is written to: ``<name>.sim.py`` beside the config, unless asked otherwise.
    path: Path
    name: str
    #: The config and entry as the file names them (relative to the file's folder).
    config: str
    entry: str
    #: The wrangler environment drafted for, None for the top level.
    env: str | None
    setup: tuple[dict[str, Any], ...]
    #: ``{"kind": "queue", "name", "variable"}``, ``{"kind": "http", "variable"}`` (with
    #: ``"agents"``, the Durable Object bindings routeAgentRequest serves, when it is called), or None
    #: when the Worker has no entry point this build drives (the drive is then a hole).
    drive: dict[str, Any] | None
    externals: tuple[dict[str, Any], ...]
    #: ``{"name", "hint", "line"}`` for each ``todo(...)``, in the file's order.
    holes: tuple[dict[str, Any], ...]
    #: Example invariants, as the Python the file shows in comments.
    example_invariants: tuple[str, ...]
    #: Example events for the drive's hole, as plain data (empty when nothing was read).
    example_events: tuple[dict[str, Any], ...]
    notes: tuple[DraftNote, ...]
    scan: SourceScan
    #: The scenario file's text.
    source: str

    def to_data(self) -> dict[str, Any]:
        """The draft as data: the same information the file holds, for ``--json``."""
        return {
            "path": str(self.path),
            "name": self.name,
            "config": self.config,
            "entry": self.entry,
            "env": self.env,
            "setup": [dict(step) for step in self.setup],
            "drive": None if self.drive is None else dict(self.drive),
            "externals": [dict(item) for item in self.externals],
            "holes": [dict(hole) for hole in self.holes],
            "exampleInvariants": list(self.example_invariants),
            "exampleEvents": [dict(event) for event in self.example_events],
            "handlers": list(self.scan.handlers),
            "modules": list(self.scan.modules),
            "notes": [note.to_data() for note in self.notes],
            "source": self.source,
        }


def find_config_upward(start: Path) -> Path:
    """The wrangler config wrangler would use from ``start``: in it, else in the nearest parent."""
    directory = start.resolve()
    for _ in range(_PARENTS_MAX):
        for name in wrangler.CONFIG_NAMES:
            if (directory / name).is_file():
                return directory / name
        if directory.parent == directory:
            break
        directory = directory.parent
    raise UserError(
        f"no wrangler config in {start} or any folder above it: name one (eutaxy draft path/to/wrangler.jsonc) "
        f"or run eutaxy draft in the Worker's folder ({', '.join(wrangler.CONFIG_NAMES)})"
    )


def draft_worker(
    config_path: str | Path | None = None,
    *,
    cwd: Path | None = None,
    entry: str | Path | None = None,
    env: str | None = None,
    out: str | Path | None = None,
) -> Draft:
    """Draft a scenario for the Worker the wrangler config at ``config_path`` describes.

    Args:
        config_path: the wrangler config; None finds it as wrangler does, from ``cwd`` up.
        cwd: where a relative ``config_path`` and the search start (default: the working folder).
        entry: the Worker's entry module, when the config's ``main`` should not be used.
        env: a wrangler environment (``env.<name>``) to draft for, as ``--env`` checks it;
            the file is then ``<name>-<env>.sim.py`` and its worker names the environment.
        out: the file to write instead of ``<name>.sim.py`` beside the config (relative to
            ``cwd``); the paths the draft names are then relative to its folder.

    Raises:
        UserError: no config, a config the reader refuses, no entry module.
    """
    base = Path.cwd() if cwd is None else cwd
    if config_path is None:
        path = find_config_upward(base)
    else:
        path = Path(config_path)
        path = path if path.is_absolute() else base / path
        if path.is_dir():
            path = wrangler.find_config(path)
    config = wrangler.read_config(path, env=env)
    folder = _user_config(config).parent
    entry_path = _entry(config, entry, base)
    name = _scenario_name(config)
    if out is None:
        path = folder / f"{name}.sim.py"
    else:
        path = Path(out) if Path(out).is_absolute() else base / out
        if path.is_dir():
            path = path / f"{name}.sim.py"
        if not path.name.endswith(".py"):
            raise UserError(f"{out}: a scenario file is Python; name it <name>.sim.py")
        path = Path(os.path.abspath(path))
    scan = scan_worker(_source_entry(config, entry_path), path.parent)
    builder = _Builder(config=config, folder=folder, path=path, scan=scan, entry=entry_path, name=name)
    return builder.build()


def write_draft(draft: Draft) -> Path:
    """Write the draft's file, which must not exist yet; return its path.

    Raises:
        UserError: the file exists (it is never replaced) or cannot be written.
    """
    try:
        with open(draft.path, "x", encoding="utf-8") as handle:
            handle.write(draft.source)
    except FileExistsError:
        raise UserError(
            f"{draft.path}: already exists; eutaxy draft never replaces a file. Move it away or edit it "
            "(eutaxy draft --json prints the draft without writing)"
        ) from None
    except OSError as error:
        raise UserError(f"{draft.path}: cannot be written: {error}") from None
    return draft.path


# --- what the draft reads ------------------------------------------------------------


def _entry(config: wrangler.WranglerConfig, entry: str | Path | None, base: Path) -> Path:
    if entry is not None:
        path = Path(entry)
        path = path if path.is_absolute() else base / path
        if not path.is_file():
            raise UserError(f"{entry}: the Worker's entry module does not exist ({path})")
        return path.resolve()
    if config.main is None:
        raise UserError(f"{config.path}: names no main module; add \"main\" to the config or pass --entry path/to/worker.ts")
    return config.main


def _source_entry(config: wrangler.WranglerConfig, entry: Path) -> Path:
    """The module the scan starts from: for a config a build redirects (the Vite plugin's), the
    source entry the user's config names, which holds the types and the lines the author
    knows (the build's output is what the check runs); else ``entry``."""
    if config.redirected_from is None:
        return entry
    source = wrangler.source_main(config.redirected_from)
    return source if source is not None and source.is_file() else entry


def _user_config(config: wrangler.WranglerConfig) -> Path:
    """The config the user wrote: the scenario lives beside it and names it, also when a build
    redirects it to a generated config (the check follows the redirect again, from the build's
    latest output)."""
    return config.redirected_from or config.path


def _scenario_name(config: wrangler.WranglerConfig) -> str:
    """The config's ``name`` (else its folder's), as a file name: letters, digits, '.', '_', '-'."""
    raw = config.name or _user_config(config).parent.name or "worker"
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", raw).strip("-.") or "worker"
    return name


def _relative(path: Path, folder: Path) -> str:
    """``./x`` for a file under ``folder``, else a ``../`` path (never absolute, so the draft moves with the project)."""
    relative = os.path.relpath(path, folder)
    relative = Path(relative).as_posix()
    return relative if relative.startswith("../") else f"./{relative}"


def agent_route_namespace(binding: str) -> str:
    """The path segment routeAgentRequest serves a Durable Object binding under (the Agents SDK's kebab case).

    A name all in capitals is lowercased (``MY_AGENT`` -> ``my-agent``); otherwise each capital
    starts a new lowercased word (``MyAgent`` -> ``my-agent``); underscores become hyphens and
    a hyphen at either end is dropped.
    """
    if binding.upper() == binding and binding.lower() != binding:
        return binding.lower().replace("_", "-")
    words = re.sub(r"[A-Z]", lambda m: "-" + m.group(0).lower(), binding)
    return words.removeprefix("-").replace("_", "-").removesuffix("-")


def _identifier(text: str, taken: set[str], fallback: str) -> str:
    """A Python name for ``text`` (``order-events`` -> ``order_events``) no other name has."""
    name = re.sub(r"\W+", "_", text).strip("_").lower()
    if not name or not name.isidentifier() or keyword.iskeyword(name) or name[0].isdigit():
        name = fallback
    candidate, suffix = name, 2
    while candidate in taken:
        candidate = f"{name}_{suffix}"
        suffix += 1
    taken.add(candidate)
    return candidate


def _py(value: Any) -> str:
    """A value as Python source (JSON data only: strings, numbers, booleans, None, lists, dicts)."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (int, float, str)):
        return json.dumps(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(key)}: {_py(item)}" for key, item in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_py(item) for item in value) + "]"
    raise AssertionError(f"not JSON data: {value!r}")


# --- building the draft --------------------------------------------------------------


@attrs.define
class _Builder:
    """Collects the draft's parts, its notes and its imports, then renders the file once."""

    config: wrangler.WranglerConfig
    #: The config's folder, where schema files are looked for.
    folder: Path
    #: The file the draft is written to; the paths it names are relative to its folder.
    path: Path
    scan: SourceScan
    entry: Path
    name: str
    notes: list[DraftNote] = attrs.Factory(list)
    imports: set[str] = attrs.Factory(lambda: {"define_scenario", "todo"})
    names: set[str] = attrs.Factory(lambda: {"scenario"})
    holes: list[dict[str, str]] = attrs.Factory(list)
    #: Per external host, the keys its first JSON body written out has (for the examples).
    body_keys: dict[str, tuple[tuple[str, str | None], ...]] = attrs.Factory(dict)
    #: What each binding kind's draft_setup found, by binding (bindings.DraftContext).
    found: dict[str, Any] = attrs.Factory(dict)
    #: The Workers the draft runs as callees, by name (bindings.DraftContext).
    callees: set[str] = attrs.Factory(set)
    #: The drive's variable, once the drive is drafted (None: a hole or not yet).
    drive_variable: str | None = None
    #: Whether the drive delivers messages (a queue's, a WebSocket's) rather than requests:
    #: its events carry the body the code reads a message as.
    messages_drive: bool = False
    #: The id-like field (else the first string field) of the event body the Worker reads, once
    #: the drive's example events are known to carry it (None for a bodiless event).
    body_key: str | None = None

    def note(self, kind: str, text: str) -> None:
        self.notes.append(DraftNote(kind=kind, text=text))

    def relative(self, path: Path) -> str:
        """``path`` as the drafted file names it."""
        return _relative(path, self.path.parent)

    def hole(self, name: str, hint: str) -> str:
        """The ``todo(...)`` call for a hole, recorded for the data."""
        self.holes.append({"name": name, "hint": hint})
        return f"todo({json.dumps(name)}, {json.dumps(hint)})"

    def uses(self, name: str) -> None:
        """Import ``name`` from eutaxy.cloudflare in the file."""
        self.imports.add(name)

    def identifier(self, text: str, fallback: str) -> str:
        """A Python name for ``text`` no other name in the file has."""
        return _identifier(text, self.names, fallback)

    def python(self, value: Any) -> str:
        """A value (JSON data) as Python source."""
        return _py(value)

    @property
    def handlers(self) -> frozenset[str]:
        """The handlers the scan found the entry exporting."""
        return frozenset(self.scan.handlers)

    @property
    def entry_name(self) -> str:
        """The entry module as the notes name it (relative to the config's folder)."""
        return _relative(self.entry, self.path.parent)

    def build(self) -> Draft:
        scan = self.scan
        environment = f" (environment {self.config.environment})" if self.config.environment else ""
        built = f" (built to {_relative(self.config.path, self.path.parent)})" if self.config.redirected_from else ""
        self.note("read", f"the config {_relative(_user_config(self.config), self.path.parent)}{built}{environment}, "
                  f"and {', '.join(scan.modules)} scanned as text; nothing was imported or run")
        for skipped in scan.skipped:
            self.note("unread", f"not scanned: {skipped}")
        setup, setup_lines = self._setup()
        drive, drive_lines, events = self._drive()
        externals, external_lines = self._externals()
        self._unproxied()
        secrets = self._secrets()
        examples = self._examples(drive, externals, events)
        source = self._render(setup_lines, drive, drive_lines, external_lines, examples, secrets)
        holes = _with_lines(self.holes, source)
        return Draft(
            path=self.path,
            name=self.name,
            config=_relative(_user_config(self.config), self.path.parent),
            entry=_relative(self.entry, self.path.parent),
            env=self.config.environment,
            setup=tuple(setup),
            drive=drive,
            externals=tuple(externals),
            holes=tuple(holes),
            example_invariants=tuple(examples),
            example_events=tuple(events),
            notes=tuple(self.notes),
            scan=scan,
            source=source,
        )

    # -- setup --

    def _setup(self) -> tuple[list[dict[str, Any]], list[str]]:
        steps: list[dict[str, Any]] = []
        lines: list[str] = []
        kinds = {kind.name: kind for kind in bindings.registered()}
        for binding in self.config.bindings:
            kind = kinds.get(binding.kind)
            if kind is None or kind.setup_step is None or binding.name not in kind.resources(self.config):
                continue  # a kind without a setup step, or a binding that stands in as a trap (noted as not proxied)
            step, step_lines = kind.draft_setup(binding, self)
            # The step's own helper: a service binding's may be callee(...) rather than service(...).
            self.imports.add(step["kind"])
            steps.append(step)
            lines += step_lines
        return steps, lines

    # -- drive --

    def _drive(self) -> tuple[dict[str, Any] | None, list[str], list[dict[str, Any]]]:
        scan = self.scan
        handlers = set(scan.handlers)
        entry = _relative(self.entry, self.path.parent)
        if scan.export_shape == "router":
            self.note("guess", f"{entry} default-exports an object made with new ...(): taken to answer fetch() (a router such as Hono's)")
        elif scan.export_shape == "none":
            self.note("unread", f"no default export with handlers found in {entry}; the drive is chosen from the config alone")
        # A kind with a drive (the queue consumer's) drives the Worker when the config gives it
        # events to deliver: the first such kind, in registration order.
        driving = [kind for kind in bindings.registered() if kind.drive is not None]
        chosen = None
        for kind in driving:
            if kind.draft_drive_notes(self) and chosen is None:
                chosen = kind
        if "scheduled" in handlers and (chosen is not None or not self.config.crons):
            why = "the config lists no triggers.crons" if not self.config.crons else "the queue is driven here"
            self.note("entry_point", f"the Worker has a scheduled() handler (Cron Triggers); {why}, so a cron(...) drive is left to a second scenario")
        for handler in ("email", "tail", "trace", "test"):
            if handler in handlers:
                self.note("entry_point", f"the Worker has an {handler}() handler, which this build does not drive")
        if chosen is not None:
            self.messages_drive = True
            return chosen.draft_drive(self)
        if "scheduled" in handlers and self.config.crons:
            return self._cron_drive("fetch" in handlers)
        if scan.entrypoints:
            return self._rpc_drive("fetch" in handlers)
        if "fetch" not in handlers and scan.export_shape != "none":
            named = "".join(f" or {kind.drive_handler}()" for kind in driving)
            self.note("unread", f"{entry} has no fetch(){named} handler this build can drive; the drive is a hole")
            hint = f"a drive, {''.join(f'{kind.drive}(...) or ' for kind in driving)}http(...), for an entry point of this Worker"
            lines = [f"# TODO(drive): {hint}.", f"drive = {self.hole('drive', hint)}"]
            return None, lines, []
        if scan.export_shape == "none":
            self.note("guess", "the drive is http(...), calling fetch(), since nothing else was found")
        elif "scheduled" in handlers or any(kind.drive_handler in handlers for kind in driving):
            sources = " or ".join(str(kind.drive_source) for kind in driving)
            self.note("guess", f"the drive calls fetch() since the config gives no {sources}")
        if scan.routes_agents:
            return self._agent_drive()
        return self._http_drive()

    def _agent_drive(self) -> tuple[dict[str, Any], list[str], list[dict[str, Any]]]:
        """The http drive of a Worker that calls ``routeAgentRequest``: a request to each Agent's route.

        routeAgentRequest serves ``/agents/<namespace>/<name>``, the namespace being the
        binding's name in kebab case (:func:`agent_route_namespace`), for every Durable Object
        namespace in ``env``: the config's own-script bindings.
        """
        scan = self.scan
        own = [binding for kind in bindings.registered() if kind.routes_agents for binding in kind.resources(self.config)]
        paths = [f"/agents/{agent_route_namespace(binding)}/agent-1" for binding in own]
        routes = ", ".join(f"{path} ({binding})" for path, binding in zip(paths, own, strict=True))
        if "onMessage" in scan.agent_handlers and "onRequest" not in scan.agent_handlers:
            self.messages_drive = True
            body, said = self.body_hint()
            return self._agent_websocket_drive(own, paths, routes, body, said)
        body, said = self.body_hint()
        self.imports.add("http")
        variable = _identifier("requests", self.names, "requests")
        method = "POST" if scan.reads_body else "GET"
        events: list[dict[str, Any]] = []
        for path in paths:
            event: dict[str, Any] = {"method": method, "path": path}
            if scan.reads_body:
                event["body"] = body if body is not None else {}
            events.append(event)
        hint = "the requests to send to the Agents, in order, each {'method', 'path', 'body'} (an Agent's onRequest answers them)"
        lines = [f"{variable} = http(", f"    # TODO(events): {hint}."]
        if events:
            lines.append(f"    # routeAgentRequest serves /agents/<binding in kebab case>/<agent name>: {routes}.")
            lines.append("    # A WebSocket upgrade sent as a request is not modelled (UNSUPPORTED); drive an Agent's")
            lines.append("    # WebSocket messages with websocket(...) instead.")
            if said:
                lines.append(f"    # {said}.")
            lines.append(f"    # e.g. [{_py(events[0])}, ...]")
            self.note("entry_point", f"the code calls routeAgentRequest (an Agents SDK Worker): the drive sends requests to the Agents' routes, {routes}")
        else:
            self.note("unread", "the code calls routeAgentRequest but the config binds no Durable Object class of this Worker, so no Agent route is known")
        lines.append(f"    {self.hole('events', hint)},")
        lines += self.caller_lines()
        lines.append(")")
        return {"kind": "http", "name": "http", "variable": variable, "agents": own}, lines, events

    def caller_lines(self) -> list[str]:
        """The example http caller: one that resends a request it got no answer or a 5xx for.

        Cloudflare never resends an inbound request; a real caller's policy is the user's to
        state. The draft's guess is a caller that resends on a failure (a client library's
        retry, a user reloading the page), so that its example ``at_least_once`` over the
        first response holds under the draft's one fault per run on a correct Worker: under
        ``retries=0`` any crash before the answer breaks it, which teaches nothing.
        """
        self.note("guess", f"the http caller resends a request it got no answer or a 5xx for, up to {CALLER_RETRIES} times, after "
                  f"{', then '.join(f'{delay} ms' for delay in CALLER_DELAYS_MS)} (Cloudflare itself never resends): set what the "
                  "Worker's real callers do (retries=0 for a caller that never resends)")
        return [
            "    # The caller (a guess: set what the Worker's real callers do): one that resends after no",
            "    # answer or a 5xx. retries=0 never resends; a webhook sender resends until it gets a 2xx:",
            "    # retries=3, retry_on=\"non-2xx\", delays_ms=[1000, 5000].",
            f"    retries={CALLER_RETRIES}, retry_on=\"5xx\", delays_ms={_py(list(CALLER_DELAYS_MS))},",
        ]

    def _agent_websocket_drive(self, own: list[str], paths: list[str], routes: str, body: dict[str, Any] | None,
                               said: str) -> tuple[dict[str, Any], list[str], list[dict[str, Any]]]:
        """The websocket drive of an Agents SDK Worker whose Agents answer messages (``onMessage``)
        and no requests: a connection to each Agent's route, sending one message."""
        self.imports.add("websocket")
        variable = _identifier("connections", self.names, "connections")
        data: Any = body if body is not None else ""
        events = [{"id": f"ws-{number}", "path": path, "messages": [{"data": data}]} for number, path in enumerate(paths, start=1)]
        hint = "the WebSocket connections to open, in order, each {'path', 'messages': [{'data': ...}]} (an Agent's onMessage answers them)"
        lines = [f"{variable} = websocket(", f"    # TODO(events): {hint}."]
        if events:
            lines.append(f"    # routeAgentRequest serves /agents/<binding in kebab case>/<agent name>: {routes}.")
            if said:
                lines.append(f"    # {said.replace('the body', 'a message')}.")
            lines.append(f"    # e.g. [{_py(events[0])}, ...]")
            self.note("entry_point", f"the code calls routeAgentRequest and its Agents answer WebSocket messages (onMessage), not "
                      f"requests: the drive opens a connection to the Agents' routes, {routes}")
        else:
            self.note("unread", "the code calls routeAgentRequest but the config binds no Durable Object class of this Worker, so no Agent route is known")
        lines.append(f"    {self.hole('events', hint)},")
        lines.append(")")
        return {"kind": "websocket", "name": "websocket", "variable": variable, "agents": own}, lines, events

    def assets_serve(self, path: str) -> bool:
        """Whether the config's static assets answer ``path`` before the Worker: a file of theirs
        serves it (``index.html`` for a folder's path, by html_handling) and ``run_worker_first``
        is not true. A list of ``run_worker_first`` patterns counts as not naming the path: the
        draft then proposes another path, never one the assets may answer."""
        assets = ASSETS.assets(self.config)
        if assets is None or assets.run_worker_first is True:
            return False
        relative = path.split("?", 1)[0].strip("/")
        folder = assets.directory
        candidates = [folder / relative / "index.html"] if not relative else [
            folder / relative, folder / f"{relative}.html", folder / relative / "index.html"]
        return any(candidate.is_file() for candidate in candidates)

    def _cron_drive(self, fetches: bool) -> tuple[dict[str, Any], list[str], list[dict[str, Any]]]:
        """The cron drive of a Worker with a scheduled() handler and Cron Triggers: the config's first expression."""
        self.imports.add("cron")
        expression = self.config.crons[0]
        variable = _identifier("ticks", self.names, "ticks")
        hint = "how many ticks of the expression to fire, from the virtual epoch on (each runs scheduled() once)"
        lines = [f"{variable} = cron(", f"    {json.dumps(expression)},", f"    # TODO(events): {hint}."]
        lines.append(f"    ticks={self.hole('events', hint)},")
        lines.append("    # A failed tick: Cloudflare documents noRetry() but not how often it runs again; retries=0 never.")
        lines.append("    retries=0,")
        lines.append(")")
        self.note("read", f"the drive fires the config's Cron Trigger {expression!r} at scheduled()")
        for other in self.config.crons[1:]:
            self.note("entry_point", f"the config also lists Cron Trigger {other!r}; a second scenario can drive it with cron({other!r}, ...)")
        if fetches:
            self.note("entry_point", "the Worker also has a fetch() handler; a second scenario can drive it with http(...)")
        self.note("guess", "a failed tick is not run again (retries=0); set how often the job should be retried")
        return {"kind": "cron", "name": "cron", "variable": variable}, lines, []

    def _rpc_drive(self, fetches: bool) -> tuple[dict[str, Any], list[str], list[dict[str, Any]]]:
        """The rpc drive of a Worker whose entry exports a WorkerEntrypoint class: the first one's methods."""
        self.imports.add("rpc")
        name, methods = self.scan.entrypoints[0]
        variable = _identifier("calls", self.names, "calls")
        hint = f"the calls to make to {name}, in order, each {{'method', 'args'}}"
        # The first method's arguments by their declared types ("" for a string, 0 for a number, ...).
        params = self.scan.entrypoint_params.get((name, methods[0]), ()) if methods else ()
        events = [{"method": methods[0], "args": list(body_example(params).values())}] if methods else []
        lines = [f"{variable} = rpc(", f"    # TODO(events): {hint}."]
        if methods:
            lines.append(f"    # Its methods: {', '.join(methods)}; e.g. [{_py(events[0])}, ...]")
        lines.append(f"    {self.hole('events', hint)},")
        lines.append(f"    entrypoint={json.dumps(name)},")
        lines.append("    # The caller: retries=0 never calls again (a Worker resends only when written to); one that")
        lines.append("    # gives up waiting and calls again: retries=2, delays_ms=[1000], deadline_ms=5000.")
        lines.append("    retries=0,")
        lines.append(")")
        self.note("read", f"the drive calls the methods of {name}, a WorkerEntrypoint the entry exports, over RPC")
        for other, _ in self.scan.entrypoints[1:]:
            self.note("entry_point", f"the entry also exports WorkerEntrypoint {other}; a second scenario can drive it with rpc(..., entrypoint={other!r})")
        if fetches:
            self.note("entry_point", "the Worker also has a fetch() handler; a second scenario can drive it with http(...)")
        self.note("guess", "the rpc caller never calls again (retries=0); set what the Worker's real callers do")
        return {"kind": "rpc", "name": "rpc", "variable": variable}, lines, events

    def body_hint(self) -> tuple[dict[str, Any] | None, str]:
        fields, name = self.event_body()
        if not fields:
            return None, ""
        return body_example(fields), f"The code reads the body as {name}"

    def event_body(self) -> tuple[tuple[tuple[str, str], ...], str | None]:
        """The fields (and the type's name) of the body the drive's events carry: a message's
        for a drive of messages (a queue's, a WebSocket's), else a request's."""
        scan = self.scan
        if self.messages_drive and scan.message_fields:
            return scan.message_fields, scan.message_type
        return scan.body_fields, scan.body_type

    def _http_drive(self) -> tuple[dict[str, Any], list[str], list[dict[str, Any]]]:
        self.imports.add("http")
        scan = self.scan
        variable = _identifier("requests", self.names, "requests")
        routes = [route for route in scan.routes]
        body, said = self.body_hint()
        events: list[dict[str, Any]] = []
        seen: set[tuple[str | None, str]] = set()
        reading = "POST" if scan.reads_body else "GET"
        for route in routes:
            method = route.method or (scan.methods[0] if len(scan.methods) == 1 else None) or reading
            if (method, route.path) in seen:
                continue
            seen.add((method, route.path))
            events.append({"method": method, "path": _example_path(route.path)})
        filled = sorted({route.path for route in routes if _example_path(route.path) != route.path})
        if filled:
            self.note("guess", f"the example requests fill the route parameters of {', '.join(filled)} with example values "
                      f"({', '.join(_example_path(path) for path in filled)}): give each a value the Worker knows")
        if not events and (scan.reads_body or scan.methods or scan.required_headers):
            # No path compared: the Worker answers every path; one request to "/" shows the shape.
            method = scan.methods[0] if len(scan.methods) == 1 else reading
            events.append({"method": method, "path": "/"})
            self.note("guess", f"the code compares no path, so the example request goes to / ({method})")
        served = [event["path"] for event in events if self.assets_serve(event["path"])]
        if served:
            events = [event for event in events if event["path"] not in served]
            self.note("read", f"the assets answer {', '.join(served)} before the Worker (a file of theirs, and run_worker_first "
                      "is not true), so the example requests leave it out")
        headers = {name: "" for name, _ in scan.required_headers}
        for event in events:
            if headers:
                event["headers"] = dict(headers)
            if event["method"] not in ("GET", "HEAD") and (body is not None or scan.reads_body):
                event["body"] = body if body is not None else {}
        for name, where in scan.required_headers:
            self.note("guess", f"{where}: the code reads the request header {name} and answers 400 near it: "
                      "the example requests carry it (give each the value a real caller sends)")
        hint = "the requests to send to fetch(), in order, each {'method', 'path', 'body'}"
        lines = [f"{variable} = http(", f"    # TODO(events): {hint}."]
        if routes:
            places = ", ".join(
                f"{route.path} ({route.where}{f', mounted at {route.mounted_by}' if route.mounted_by else ''})" for route in routes[:8]
            )
            lines.append(f"    # Paths the code routes on: {places}.")
            self.note("read", f"paths the code routes on: {places}")
        if scan.methods:
            lines.append(f"    # Methods it compares request.method to: {', '.join(scan.methods)}.")
        if events:
            lines.append(f"    # {said + ', e.g.' if said else 'e.g.'} [{_py(events[0])}, ...]")
        lines.append(f"    {self.hole('events', hint)},")
        lines += self.caller_lines()
        lines.append(")")
        return {"kind": "http", "name": "http", "variable": variable}, lines, events

    # -- externals --

    def _externals(self) -> tuple[list[dict[str, Any]], list[str]]:
        scan = self.scan
        by_host: dict[str, list[Any]] = {}
        for fetch in scan.fetches:
            by_host.setdefault(fetch.host, []).append(fetch)
        externals: list[dict[str, Any]] = []
        lines: list[str] = []
        for host in sorted(by_host):
            self.imports.add("external")
            requests = by_host[host]
            listed = []
            for fetch in requests:
                listed.append({"method": fetch.method, "path": fetch.path, "where": fetch.where})
                if fetch.host_guessed:
                    self.note("guess", f"{fetch.where}: the host {host} ends a template literal's literal part; check it is the whole host")
            places = "; ".join(f"{item['method'] or '?'} {item['path']} ({item['where']})" for item in listed)
            lines.append(f"# {host}: fetched by literal URL: {places}.")
            replies = _default_replies(requests)
            if replies:
                read = "; ".join(f"{fetch.where} reads the reply with .json()" for fetch in requests if fetch.reads == "json")
                lines.append(f"# A guess from how the code reads the reply ({read}): 200 with an empty JSON object")
                lines.append("# (content-type application/json); script what the API really answers. Any other request is")
                lines.append("# answered 200 with an empty body.")
                self.note("guess", f"external {host}: {read}, so it is answered 200 with {{}} (application/json); "
                          "script what the API really answers")
            else:
                lines.append("# Until replies are scripted, every request is answered 200 with an empty body; script")
                first = listed[0]
                example = {"method": first["method"] or "GET", "path": first["path"], "status": 200, "body": None}
                lines.append(f"# them as responses=[{_py(example)}, ...].")
            texts = [fetch.where for fetch in requests if fetch.reads == "text"]
            if texts:
                self.note("guess", f"external {host}: {', '.join(texts)} reads the reply with .text(): the unscripted reply's "
                          "empty body reads as empty text; script what the API really answers")
            unread = [fetch.where for fetch in requests if fetch.reads == "json" and fetch.method is None]
            if unread:
                self.note("guess", f"external {host}: {', '.join(unread)} reads the reply with .json() but its method is not "
                          "literal, so its reply is not scripted (200, empty body): script it")
            if scan.idempotency_headers:
                lines.append(f"# The code sends a {scan.idempotency_headers[0]} header: "
                             f"if this API deduplicates by it, add dedupe_by={json.dumps(scan.idempotency_headers[0])}.")
            scripted = f", {_py(replies)}" if replies else ""
            lines.append(f"external({json.dumps(host)}, {json.dumps(host)}{scripted}),")
            externals.append({"name": host, "host": host, "requests": listed})
            self.body_keys[host] = next((fetch.body_keys for fetch in requests if fetch.body_keys), ())
            default = "replies scripted as the code reads them" if replies else "no scripted replies (200, empty body)"
            self.note("read", f"external {host}: fetched by literal URL ({places}); declared with {default}")
        for where in scan.dynamic_fetches:
            self.note("unread", f"{where}: a fetch whose URL is built at run time; its host is not known to the draft "
                      "(a request to an undeclared host makes the run UNSUPPORTED: declare it with external(...))")
        return externals, lines

    # -- notes on bindings --

    def _unproxied(self) -> None:
        config = self.config
        kinds = {kind.name: kind for kind in bindings.registered()}
        for binding in config.bindings:
            if binding.kind in kinds:
                kinds[binding.kind].draft_notes(binding, self)
        for binding in config.bindings:
            if binding.kind in kinds:
                continue
            self.note("unproxied", f"{binding.kind} binding {binding.name} is not proxied in this build: a run that touches it ends UNSUPPORTED")
        for kind in bindings.registered():
            kind.draft_section_notes(self)
        if "access" in config.sections:
            self.note("unproxied", "the config puts Cloudflare Access in front of the Worker: give each request the identity Access "
                      "sets (headers={'Cf-Access-Jwt-Assertion': ..., 'Cf-Access-Authenticated-User-Email': ...}); a run in which the "
                      "Worker reads one a request lacks ends UNSUPPORTED (access_identity)")
        stated = [key for key in config.sections if (row := config_sections.section(key)) is not None and row.treatment == "stated"]
        if stated:
            self.note("read", f"config sections not modelled, each named with its assumption in every verdict: {', '.join(stated)}")

    def _secrets(self) -> list[str]:
        """``worker.secrets`` entries (as Python lines) for the names the code reads from ``env``
        that neither the config nor the local secret files (``.dev.vars``, else ``.env``) give: each a hole, since a Worker that finds
        a secret missing takes a path production never takes."""
        config = self.config
        kinds = {kind.name: kind for kind in bindings.registered()}
        known = {binding.name for binding in config.bindings if kinds.get(binding.kind) is None or kinds[binding.kind].env_bindings}
        known |= set(config.vars)
        for path in secret_files(config.path, config.environment):
            try:
                known |= set(parse_dev_vars(path.read_text(encoding="utf-8"), path))
            except (OSError, UnicodeDecodeError) as error:
                raise UserError(f"{path}: cannot be read: {error}") from None
        unknown = [name for name in self.scan.env_names if name not in known]
        if not unknown:
            return []
        self.note(
            "unread",
            f"the code reads env.{', env.'.join(unknown)}, which neither the config (bindings, vars) nor .dev.vars (or .env) gives: "
            "secrets, perhaps; each is a hole in worker.secrets (remove one the Worker does without)",
        )
        return [f"{json.dumps(name)}: {self.hole('secrets', f'a test value for env.{name}')}," for name in unknown]

    # -- invariants --

    def _examples(self, drive: dict[str, Any] | None, externals: list[dict[str, Any]], events: list[dict[str, Any]]) -> list[str]:
        examples: list[str] = []
        body_fields, _ = self.event_body()
        body_key = _key_field(body_fields)
        carried = [event for event in events if isinstance(event.get("body"), dict) and body_key in event["body"]]
        # A cron drive's ticks and an rpc drive's calls carry no body an example invariant could key on.
        self.drive_variable = None if drive is None or drive["kind"] in ("cron", "rpc") else drive["variable"]
        self.body_key = body_key if events and len(carried) == len(events) else None
        kinds = {kind.name: kind for kind in bindings.registered()}
        for binding in self.config.bindings:
            if binding.kind in kinds and binding.name in kinds[binding.kind].resources(self.config):
                examples.extend(kinds[binding.kind].draft_invariants(binding.name, self))
        fields = {name for name, _ in body_fields}
        for item in externals:
            key = _external_key(self.body_keys.get(item["host"], ()), fields, self.body_key)
            examples.append(f'at_most_once_per_key("one-call-per-key-{item["name"]}", fetch_call({json.dumps(item["name"])}), {json.dumps(key)}),')
        http_drive = drive is not None and drive["kind"] == "http"
        path = events[0]["path"] if http_drive and events else "/"
        if http_drive and not examples and self.assets_serve(path):
            self.note("read", f"the assets answer {path} before the Worker, and no other path the code routes on was found: "
                      "the example request and its invariant are left to the holes (send a path the Worker answers)")
            self.imports.update(("at_least_once", "http_response"))  # for the invariant its hole asks for
        elif http_drive and not examples:
            examples.append(f'at_least_once("first-request-answered", http_response({json.dumps(path)}), "args.requestId", ["req-1"]),')
        used = " ".join(examples)
        helpers = ("at_most_once_per_key", "at_least_once_per_message", "at_least_once", "unique", "references", "every_row", "fetch_call",
                   "http_response",
                   *(name for kind in bindings.registered() for name in kind.selectors))
        for helper in helpers:
            if f"{helper}(" in used:
                self.imports.add(helper)
        return examples

    # -- the file --

    def _render(self, setup_lines: list[str], drive: dict[str, Any] | None, drive_lines: list[str],
                external_lines: list[str], examples: list[str], secrets: list[str]) -> str:
        config = _relative(_user_config(self.config), self.path.parent)
        entry = _relative(self.entry, self.path.parent)
        invariants_hint = "what must hold after every run, whatever faults it took"
        invariants_hole = self.hole("invariants", invariants_hint)
        file_name = self.path.name
        out: list[str] = [
            f'"""A scenario for the Worker {self.name}, drafted by `eutaxy draft` from {config.removeprefix("./")}.',
            "",
            "The draft read the wrangler config and scanned the Worker's source as text; nothing was",
            "imported or run. Fill each todo(...) hole (loading this file fails while one is left),",
            "read the notes below, then check it:",
            "",
            f"    eutaxy check {file_name}",
            '"""',
            "",
            "from eutaxy.cloudflare import (",
        ]
        out += _wrapped(sorted(self.imports), "    ")
        out.append(")")
        out.append("")
        out.append("# Notes from the draft: what it read, what it guessed, and what it left out.")
        for note in self.notes:
            out += _comment(f"- {note.kind}: {note.text}", "")
        out.append("")
        out += drive_lines
        out.append("")
        out.append("scenario = define_scenario(")
        out.append(f"    name={json.dumps(self.name)},")
        # A build's output is found again through the user's config at each check (its entry
        # names a hashed build file), so the entry is named only for a Worker that is not built.
        worker = {"config": config} if self.config.redirected_from else {"entry": entry, "config": config}
        if self.config.environment is not None:
            worker["env"] = self.config.environment
        if secrets:
            out.append(f"    worker={_py(worker)[:-1]}, \"secrets\": {{")
            out.append("        # TODO(secrets): values for the names the code reads from env that nothing declares.")
            out += [f"        {line}" for line in secrets]
            out.append("    }},")
        else:
            out.append(f"    worker={_py(worker)},")
        if setup_lines:
            out.append("    setup=[")
            out += [f"        {line}" for line in setup_lines]
            out.append("    ],")
        out.append(f"    drive={drive['variable'] if drive is not None else 'drive'},")
        if external_lines:
            out.append("    externals=[")
            out += [f"        {line}" for line in external_lines]
            out.append("    ],")
        out.append("    invariants=[")
        out.append(f"        # TODO(invariants): {invariants_hint}.")
        if examples:
            out.append("        # Examples for what the draft found (names, keys and tables to adjust):")
            out += [f"        # {line}" for line in examples]
        out.append(f"        {invariants_hole},")
        out.append("    ],")
        bounds = {
            "maxFaultsPerRun": engine_bounds.MAX_FAULTS_PER_RUN_DEFAULT,
            "maxConcurrentInvocations": engine_bounds.MAX_CONCURRENT_INVOCATIONS_DEFAULT,
            "budgetMs": engine_bounds.BUDGET_MS_DEFAULT,
        }
        out.append(f"    bounds={_py(bounds)},")
        out.append(")")
        return "\n".join(out) + "\n"


#: A body field whose name says it identifies something: ``id``, ``orderId``, ``order_id``, ``idempotencyKey``.
_ID_LIKE = re.compile(r"(^(id|key|uuid)$)|([a-z0-9](Id|ID|Key|Uuid)$)|(_(id|key|uuid)$)")


#: A route's parameter as the routers write it (``/tasks/:id``).
_ROUTE_PARAMETER = re.compile(r":([A-Za-z_][A-Za-z0-9_]*)")


def _example_path(path: str) -> str:
    """``path`` with each ``:name`` parameter an example value: ``1`` for an id-like name, else ``<name>-1``."""
    return _ROUTE_PARAMETER.sub(lambda match: "1" if _ID_LIKE.search(match[1]) else f"{match[1]}-1", path)


def _key_field(fields: tuple[tuple[str, str], ...]) -> str | None:
    """The body field an example invariant keys on: the first id-like string or number field,
    else the first string field; None when the body has neither."""
    for name, kind in fields:
        if kind in ("string", "number") and _ID_LIKE.search(name):
            return name
    return next((name for name, kind in fields if kind == "string"), None)


def _default_replies(requests: list[Any]) -> list[dict[str, Any]]:
    """A route for each request whose reply the code reads with ``.json()``: 200 with ``{}``
    (sent as JSON, content-type application/json). ``.text()`` reads the empty body every
    unscripted request gets, so it needs none; a request whose method is not literal gets none."""
    routes: list[dict[str, Any]] = []
    for fetch in requests:
        route = {"method": fetch.method, "path": fetch.path, "status": 200, "body": {}}
        if fetch.reads == "json" and fetch.method is not None and route not in routes:
            routes.append(route)
    return routes


def _external_key(keys: tuple[tuple[str, str | None], ...], fields: set[str], body_key: str | None) -> str:
    """The key an example invariant over an external's calls reads: the body key whose value is
    a field of the event's body (``to: email``), else the event's first string field, else the URL."""
    for key, value in keys:
        if value is not None and value in fields:
            return f"args.body.{key}"
    if body_key is not None:
        return f"args.body.{body_key}"
    return "args.url"


def _with_lines(holes: list[dict[str, str]], source: str) -> list[dict[str, Any]]:
    """Each hole with the line of the file its ``todo(...)`` is on (holes in file order)."""
    lines = source.splitlines()
    placed: list[dict[str, Any]] = []
    cursor = 0
    for hole in sorted(holes, key=lambda item: source.index(_todo_call(item))):
        call = _todo_call(hole)
        while cursor < len(lines) and call not in lines[cursor]:
            cursor += 1
        assert cursor < len(lines), f"the draft holds every hole it made: {call}"
        placed.append({**hole, "line": cursor + 1})
        cursor += 1
    return placed


def _todo_call(hole: dict[str, str]) -> str:
    return f"todo({json.dumps(hole['name'])}, {json.dumps(hole['hint'])})"


#: The widest line the draft writes in a comment before wrapping it.
_COMMENT_WIDTH = 100


def _comment(text: str, indent: str) -> list[str]:
    """``text`` as comment lines of at most _COMMENT_WIDTH characters, continuation lines indented."""
    words = text.split(" ")
    lines: list[str] = []
    current = f"{indent}#"
    for word in words:
        candidate = f"{current} {word}"
        if len(candidate) > _COMMENT_WIDTH and current.strip() not in ("#", "#  "):
            lines.append(current)
            current = f"{indent}#   {word}"
        else:
            current = candidate
    lines.append(current)
    return lines


def _wrapped(names: list[str], indent: str) -> list[str]:
    """Import names, several to a line."""
    lines: list[str] = []
    current = indent
    for name in names:
        piece = f"{name},"
        if len(current) + len(piece) + 1 > _COMMENT_WIDTH and current.strip():
            lines.append(current.rstrip())
            current = indent
        current += piece + " "
    if current.strip():
        lines.append(current.rstrip())
    return lines
