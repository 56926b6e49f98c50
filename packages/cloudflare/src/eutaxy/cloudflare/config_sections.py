"""What Eutaxy does with each section of a wrangler config: the one table.

A Worker's config may hold any of wrangler's sections, and a section the check quietly
dropped could change what the Worker sees at run time (a missing binding, a request
Cloudflare Access would have carried an identity on) while the verdict said nothing. So
every section wrangler knows has one row here, and each row says one of:

- ``modelled``: read and applied, as wrangler and the platform apply it;
- ``stated``: not modelled; a verdict of a Worker whose config has it says what is assumed
  instead (its ``clause``, gathered into one sentence by :func:`assumptions`);
- ``unsupported``: a binding Eutaxy does not proxy; it stands in as a trap, so a run that
  touches it is UNSUPPORTED with the row's ``cause``, and the verdict names the bindings;
- ``refused``: the check cannot run such a Worker at all; the config is refused (exit 2)
  naming the section and the fix;
- ``inert``: nothing the Worker sees at run time or the check relies on (the deploy target,
  the editor's schema), so it is read past without a sentence.

A key no row names is stated too (wrangler warns about fields it does not know).
The table in docs/cloudflare.md ("Config sections") is :func:`markdown_table`'s output,
which packages/cloudflare/tests/test_config_sections.py checks; the environment rules of
:mod:`.wrangler` (which keys an environment inherits) read ``inherited`` from here.
"""

from __future__ import annotations

from typing import Any, Iterable, Literal

import attrs

from . import bindings

__all__ = ["SECTIONS", "Section", "assumptions", "markdown_table", "non_inheritable_keys", "says_something", "section"]

Treatment = Literal["modelled", "stated", "unsupported", "refused", "inert"]
#: ``top``: the top level only (an environment inherits it); ``inherited``: the top level or an
#: environment, inherited when the environment sets none; ``own``: the top level or an
#: environment, never inherited (an environment has it only where it sets it).
Where = Literal["top", "inherited", "own"]

#: The origin the http drive's requests are addressed to (runtime/http.mjs REQUEST_ORIGIN).
_ORIGIN = "https://worker.eutaxy.invalid"


@attrs.frozen(kw_only=True)
class Section:
    """One wrangler config section and what Eutaxy does with it."""

    key: str
    where: Where
    treatment: Treatment
    #: What Eutaxy does with it, one or two sentences, for the docs' table.
    does: str
    #: For a ``stated`` row: what a verdict assumes, as a clause after the key ("routes (...)").
    clause: str | None = None
    #: For an ``unsupported`` row: the cause a run that touches it ends with.
    cause: str | None = None

    def __attrs_post_init__(self) -> None:
        assert (self.treatment == "stated") == (self.clause is not None), self.key
        assert (self.treatment == "unsupported") == (self.cause is not None), self.key
        assert "|" not in self.does, f"{self.key}: a | would split the docs table's cell"


def _modelled(key: str, where: Where, does: str) -> Section:
    return Section(key=key, where=where, treatment="modelled", does=does)


def _kind_rows(kinds: Iterable[bindings.BindingKind]) -> list[Section]:
    """The registered binding kinds' rows: one per top-level key, the sentences of the kinds reading
    it (``queues``: its consumers' and producers') in registration order."""
    notes: dict[str, list[str]] = {}
    where: dict[str, Where] = {}
    for kind in kinds:
        notes.setdefault(kind.top_section, []).append(kind.section_note)
        where[kind.top_section] = kind.section_where
    return [_modelled(key, where[key], " ".join(sentences)) for key, sentences in notes.items()]


def _stated(key: str, where: Where, clause: str, does: str | None = None) -> Section:
    return Section(key=key, where=where, treatment="stated", does=does or f"Not modelled; stated: {clause}.", clause=clause)


def _unsupported(key: str, where: Where, does: str, cause: str = "binding_not_modelled") -> Section:
    return Section(key=key, where=where, treatment="unsupported", does=does, cause=cause)


def _refused(key: str, where: Where, does: str) -> Section:
    return Section(key=key, where=where, treatment="refused", does=does)


def _inert(key: str, where: Where, does: str) -> Section:
    return Section(key=key, where=where, treatment="inert", does=does)


_TRAP = "Its bindings stand in as traps: a run that touches one is UNSUPPORTED"

#: Every section wrangler's config knows (its Environment and top-level config types), in the
#: order the docs list them: the Worker, its bindings, how it is built, how it is deployed.
SECTIONS: tuple[Section, ...] = (
    # The Worker.
    _modelled("name", "inherited", "The Worker's name (`<name>-<env>` in an environment that sets none), named in the environment sentence."),
    _modelled("main", "inherited", "The entry module, bundled with Eutaxy's runtime; the scenario's `worker.entry` wins."),
    _modelled(
        "compatibility_date",
        "inherited",
        "Required; passed to workerd. A date newer than the pinned workerd runs with its newest, and the verdict says "
        "so.",
    ),
    _modelled("compatibility_flags", "inherited", "Passed to workerd (`nodejs_als` is added for concurrent runs when neither it nor `nodejs_compat` is set)."),
    _modelled("env", "top", "Environments, applied as wrangler applies them (`--env`, `worker={'env': ...}`)."),
    _modelled("vars", "own", "The Worker's vars in `env`, with `.dev.vars` or `.env` and the scenario's layered on top."),
    _stated(
        "secrets",
        "own",
        "secrets.required is not read: every name the local secret files give reaches env",
    ),
    _stated(
        "keep_vars",
        "top",
        "vars set outside the config (the dashboard) are unknown: env holds the config's, the local files' and the scenario's",
    ),
    _modelled("limits", "inherited", "`cpu_ms` is the platform's CPU limit per invocation (else Cloudflare's documented default)."),
    _modelled("migrations", "inherited", "Decides which Durable Object classes are SQLite-backed (`new_sqlite_classes`, renames and deletions followed)."),
    # Bindings Eutaxy models.
    # The registered binding kinds' sections (eutaxy.cloudflare.bindings), each its record's sentence.
    *_kind_rows(bindings.registered()),
    # Bindings Eutaxy does not proxy: traps.
    _unsupported("ai", "own", f"{_TRAP} (`binding_not_allowed`).", "binding_not_allowed"),
    _unsupported("hyperdrive", "own", f"{_TRAP} (`binding_not_allowed`).", "binding_not_allowed"),
    _unsupported("vectorize", "own", f"{_TRAP} (`binding_not_modelled`)."),
    _unsupported("analytics_engine_datasets", "own", f"{_TRAP} (`binding_not_modelled`)."),
    _unsupported("browser", "own", f"{_TRAP} (`binding_not_modelled`)."),
    _unsupported("images", "own", f"{_TRAP} (`binding_not_modelled`)."),
    _unsupported("media", "own", f"{_TRAP} (`binding_not_modelled`)."),
    _unsupported("version_metadata", "own", f"{_TRAP} (`binding_not_modelled`)."),
    _unsupported("mtls_certificates", "own", f"{_TRAP} (`binding_not_modelled`)."),
    _unsupported("send_email", "own", f"{_TRAP} (`binding_not_modelled`)."),
    _unsupported("dispatch_namespaces", "own", f"{_TRAP} (`binding_not_modelled`)."),
    _unsupported("pipelines", "own", f"{_TRAP} (`binding_not_modelled`)."),
    _unsupported("secrets_store_secrets", "own", f"{_TRAP} (`binding_not_modelled`)."),
    _unsupported("ratelimits", "own", f"{_TRAP} (`binding_not_modelled`)."),
    _unsupported("worker_loaders", "own", f"{_TRAP} (`binding_not_modelled`)."),
    _unsupported("vpc_services", "own", f"{_TRAP} (`binding_not_modelled`)."),
    _unsupported("logfwdr", "own", f"{_TRAP} (`binding_not_modelled`)."),
    _unsupported("unsafe", "own", f"{_TRAP} (`binding_not_modelled`); its metadata is not read."),
    _unsupported("unsafe_hello_world", "own", f"{_TRAP} (`binding_not_modelled`)."),
    _unsupported(
        "site",
        "top",
        "Workers Sites: the `__STATIC_CONTENT` binding stands in as a trap (`binding_not_modelled`); an import of "
        "`__STATIC_CONTENT_MANIFEST` does not bundle (exit 2).",
    ),
    _unsupported(
        "access",
        "inherited",
        "Cloudflare Access is not in front of the Worker: a request carries an Access identity (a `Cf-Access-*` header) "
        "only where the scenario's request gives one, and a run in which the Worker reads one its request lacks is "
        "UNSUPPORTED (`access_identity`), as is any read of `ctx.access`, with or without the section; the `access.dev` "
        "identity wrangler dev hands `ctx.access` is not used.",
        "access_identity",
    ),
    _stated(
        "containers",
        "own",
        "containers are not started: a Durable Object binding of a container class stands in as a trap",
        "Not started; a Durable Object binding whose class a container names stands in as a trap (`binding_not_modelled`); stated in the verdict.",
    ),
    _inert("cloudchamber", "own", "Container placement settings; nothing at run time."),
    # How it is built.
    _modelled("define", "own", "Passed to esbuild's `define`, as wrangler bundles."),
    _modelled("alias", "top", "Passed to esbuild's `alias` (a relative path from the config's folder), as wrangler bundles."),
    _stated("build", "inherited", "the custom build command is not run: main is bundled as it is on disk (run the build first)"),
    _modelled(
        "rules",
        "inherited",
        "Module rules, before wrangler's defaults (`.txt`, `.html`, `.sql` as Text, `.bin` as Data, `.wasm` as "
        "CompiledWasm), `fallthrough` as wrangler reads it: a matching import is a module of its type, not bundled.",
    ),
    _modelled(
        "no_bundle",
        "inherited",
        "Not bundled, as wrangler uploads it: main and every file under `base_dir` that a module rule matches "
        "(the config's `rules`, then wrangler's defaults) are loaded as a module list; a build's generated config "
        "(the Cloudflare Vite plugin's) sets it; stated in the verdict.",
    ),
    _refused(
        "find_additional_modules",
        "inherited",
        "Refused (exit 2): Eutaxy bundles the modules main reaches by import and uploads no others; remove it, or "
        "import the modules the Worker loads by computed name.",
    ),
    _modelled(
        "base_dir",
        "inherited",
        "With `no_bundle`, where the modules are found and named from (main's folder when unset); a bundled "
        "Worker's module paths are esbuild's.",
    ),
    _stated("preserve_file_names", "inherited", "file names inside the bundle are esbuild's"),
    _stated("minify", "inherited", "the bundle is not minified"),
    _stated("keep_names", "inherited", "function and class names are kept"),
    _modelled("tsconfig", "inherited", "Passed to esbuild's `tsconfig` (else esbuild finds tsconfig.json beside the sources), as wrangler bundles."),
    _stated("jsx_factory", "inherited", "esbuild's JSX factory applies (React.createElement, wrangler's default)"),
    _stated("jsx_fragment", "inherited", "esbuild's JSX fragment applies (React.Fragment, wrangler's default)"),
    _refused("node_compat", "inherited", "Refused (exit 2), as wrangler 4 refuses it: use `compatibility_flags = [\"nodejs_compat\"]`."),
    _refused("wasm_modules", "top", "Refused (exit 2): globals of the service-worker format, which Eutaxy does not run; import the module instead."),
    _refused("text_blobs", "top", "Refused (exit 2): globals of the service-worker format, which Eutaxy does not run; import the file instead."),
    _refused("data_blobs", "top", "Refused (exit 2): globals of the service-worker format, which Eutaxy does not run; import the file instead."),
    _inert("python_modules", "inherited", "Settings for Python Workers, which are not run: a Python `main` does not bundle (exit 2)."),
    _refused("pages_build_output_dir", "top", "Refused (exit 2): the config is a Pages project's, not a Worker's."),
    # How it is deployed and observed.
    _stated("routes", "inherited", f"requests come to {_ORIGIN} whatever route production matches"),
    _stated("route", "inherited", f"requests come to {_ORIGIN} whatever route production matches"),
    _stated("workers_dev", "inherited", f"requests come to {_ORIGIN}"),
    _stated("preview_urls", "inherited", f"requests come to {_ORIGIN}"),
    _modelled(
        "triggers",
        "inherited",
        "`crons`: the cron drive fires one of them (`cron(expression, ...)`; an expression the list lacks is refused, "
        "exit 2); a run driven otherwise never calls scheduled().",
    ),
    _stated("placement", "inherited", "where production places the Worker changes latency only, which is not modelled"),
    _stated("observability", "inherited", "logs and traces are not collected; console output is kept in the trace"),
    _stated("logpush", "inherited", "trace events are not pushed; console output is kept in the trace"),
    _stated("tail_consumers", "own", "no tail Worker receives the Worker's events"),
    _stated("streaming_tail_consumers", "own", "no tail Worker receives the Worker's events"),
    _stated("upload_source_maps", "inherited", "what is uploaded only; stack traces are mapped to the sources in any case"),
    _inert("dev", "top", "`wrangler dev`'s local server settings; production never reads them."),
    _inert("$schema", "top", "The editor's schema; nothing at run time."),
    _inert("account_id", "inherited", "The deploy target; nothing at run time."),
    _inert("compliance_region", "inherited", "The deploy target's region; nothing at run time."),
    _inert("send_metrics", "top", "Wrangler's own usage metrics; nothing at run time."),
    _inert("legacy_env", "top", "Wrangler's deprecated service environments; environments are applied as wrangler 4 applies them."),
    _inert("usage_model", "inherited", "Deprecated billing setting; nothing at run time."),
    _inert("first_party_worker", "inherited", "Cloudflare-internal; nothing at run time."),
    # Wrangler's computed fields, which tools that write the config out (a build's generated
    # wrangler.json) include.
    _inert("configPath", "top", "Written by tools that generate the config; nothing at run time."),
    _inert("userConfigPath", "top", "Written by tools that generate the config; nothing at run time."),
    _inert("topLevelName", "top", "Written by tools that generate the config; nothing at run time."),
    _inert("definedEnvironments", "top", "Written by tools that generate the config; nothing at run time."),
    _inert("targetEnvironment", "top", "Written by tools that generate the config; nothing at run time."),
)

_BY_KEY = {row.key: row for row in SECTIONS}
assert len(_BY_KEY) == len(SECTIONS), "a section is listed twice"


def section(key: str) -> Section | None:
    """The row for ``key``, None for a key wrangler's config does not know.

    A binding kind registered after this module loaded (a test's toy kind) has its row too.
    """
    row = _BY_KEY.get(key)
    if row is None:
        return next((row for row in _kind_rows(bindings.registered()) if row.key == key), None)
    return row


#: Values wrangler gives a section when the config says nothing, which say nothing either.
_DEFAULTS: dict[str, Any] = {
    "jsx_factory": "React.createElement",
    "jsx_fragment": "React.Fragment",
    "keep_names": True,
    "triggers": {"crons": []},
    "build": {"watch_dir": "./src"},
    "observability": {"enabled": False},
}


def says_something(key: str, value: Any) -> bool:
    """Whether a config's ``key`` set to ``value`` asks for anything: not empty (null, false, an
    empty list, object or string, or an object of such) and not wrangler's default, so a config a
    tool wrote out in full is read as the one its author wrote. ``access`` always does: even an
    empty one says Access is in front."""
    if key == "access":
        return True
    return not _empty(value) and value != _DEFAULTS.get(key)


def _empty(value: Any) -> bool:
    if isinstance(value, dict):
        return all(_empty(item) for item in value.values())
    return value is None or value is False or value in ("", [])


def non_inheritable_keys() -> frozenset[str]:
    """The keys an environment does not inherit (wrangler's non-inheritable keys)."""
    own = {kind.top_section for kind in bindings.registered() if kind.section_where == "own"}
    return frozenset(row.key for row in SECTIONS if row.where == "own") | own


def assumptions(config_name: str, keys: Iterable[str]) -> list[str]:
    """The verdict's sentence for the ``stated`` sections and the unknown keys a config has, else none.

    ``keys`` are the config's keys as the checked environment sees them, in its order. One
    sentence holds every stated section, so a config with many says each once, briefly.
    """
    present = list(dict.fromkeys(keys))
    rows = {key: section(key) for key in present}
    stated = [row for row in rows.values() if row is not None and row.treatment == "stated"]
    unknown = [key for key, row in rows.items() if row is None]
    sentences = []
    if stated:
        clauses = "; ".join(f"{row.key} ({row.clause})" for row in stated)
        sentences.append(f"Sections of {config_name} Eutaxy does not model, assumed not to change what a run checks: {clauses}.")
    if unknown:
        sentences.append(
            f"Keys of {config_name} that no wrangler section names are not read: {', '.join(unknown)} "
            "(wrangler warns about them too)."
        )
    return sentences


_WHERE = {"top": "top level", "inherited": "top level or environment (inherited)", "own": "top level or environment (not inherited)"}


def markdown_table() -> str:
    """The docs' table of every section: docs/cloudflare.md holds this text verbatim."""
    lines = ["| Section | Where | Eutaxy | What it does |", "|---|---|---|---|"]
    for row in SECTIONS:
        lines.append(f"| `{row.key}` | {_WHERE[row.where]} | {row.treatment} | {row.does} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
