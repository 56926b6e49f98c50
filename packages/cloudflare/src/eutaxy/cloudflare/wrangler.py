"""Reading a Worker's wrangler config (JSONC, JSON or TOML) into what the simulator needs.

The grammars give one meaning: a config is parsed into plain data (JSONC by
:mod:`.jsonc`, TOML by the standard library's ``tomllib``) and everything after that
is one reader, so a ``wrangler.toml`` and its ``wrangler.jsonc`` twin give the same
:class:`WranglerConfig`. Read are the entry (``main``), the compatibility date and
flags, the bindings (each registered binding kind reads its own section, and what it needs
beyond its bindings: Durable Objects' ``migrations`` and ``containers``, the ``assets``
section; ``eutaxy.cloudflare.bindings``), ``vars``, ``define``, ``alias`` and the keys
present; what Eutaxy does with each section is :mod:`.config_sections`' table, and a section
it refuses is refused here.

An environment (``--env NAME``, ``worker={"env": NAME}``) is applied as wrangler
applies it (its documentation, "Environments" and "Non-inheritable keys"): the
environment's keys replace the top level's; every other top-level key is inherited
(``main``, ``compatibility_date``, ``compatibility_flags``, ...) except the
non-inheritable ones (``vars``, ``define`` and every binding section), which an
environment has only when it sets them: one that sets no ``d1_databases`` has none,
as it would deployed. ``name`` becomes ``<name>-<env>`` unless the environment names
itself, as wrangler deploys it.

Every problem is a :class:`~eutaxy.core.errors.UserError` naming the file and
what is wrong in it, because the config is the user's to fix.
"""

from __future__ import annotations

import datetime
import json
import re
import tomllib
from pathlib import Path
from typing import Any, Mapping

import attrs

from eutaxy.core.errors import UserError

from . import bindings as binding_kinds, config_sections, jsonc

__all__ = [
    "DEFAULT_MODULE_RULES",
    "Binding",
    "ModuleRule",
    "WranglerConfig",
    "find_config",
    "read_config",
    "redirected_config",
    "source_main",
]

#: Cloudflare's documented CPU time limit per invocation on the Standard (paid) plan when
#: the config's ``limits.cpu_ms`` sets none (developers.cloudflare.com/workers/platform/limits/).
CPU_MS_DEFAULT = 30_000
#: The most ``limits.cpu_ms`` Cloudflare accepts (5 minutes).
CPU_MS_MAX = 300_000

#: Config file names wrangler looks for, in its order of preference.
#: The config files wrangler looks for, in its order: ``wrangler.json`` wins over
#: ``wrangler.jsonc``, which wins over ``wrangler.toml``, when one folder holds several.
CONFIG_NAMES = ("wrangler.json", "wrangler.jsonc", "wrangler.toml")

#: Where a build tool (the Cloudflare Vite plugin) writes the file that redirects wrangler from the
#: user's config to the config it generated with the build output, relative to the user's config.
DEPLOY_CONFIG = Path(".wrangler") / "deploy" / "config.json"

#: The package that makes a project's Worker the Cloudflare Vite plugin's build output.
VITE_PLUGIN = "@cloudflare/vite-plugin"

#: Top-level keys an environment does not inherit (wrangler's non-inheritable keys): the
#: vars and every binding section. An environment has them only where it sets them. The
#: table of sections (:mod:`.config_sections`) holds the rule.
NON_INHERITABLE_KEYS = config_sections.non_inheritable_keys()

#: A compatibility date as wrangler writes one; :func:`_compatibility_date` also checks the calendar.
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")

#: Where tomllib's message says the error is ("(at line 3, column 5)").
_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")

#: Binding sections whose entries are ``{"binding": NAME, ...}`` lists, with the
#: field naming the resource behind each binding: the registered binding kinds' sections
#: (``eutaxy.cloudflare.bindings``, read first, in their order), then these.
_LIST_SECTIONS = {
    "hyperdrive": ("hyperdrive", "id"),
    "vectorize": ("vectorize", "index_name"),
    "analytics_engine_datasets": ("analytics_engine", "dataset"),
    "dispatch_namespaces": ("dispatch_namespace", "namespace"),
    "mtls_certificates": ("mtls_certificate", "certificate_id"),
    "secrets_store_secrets": ("secrets_store_secret", "secret_name"),
    "pipelines": ("pipeline", "pipeline"),
    "worker_loaders": ("worker_loader", "binding"),
    "vpc_services": ("vpc_service", "service_id"),
    "unsafe_hello_world": ("unsafe_hello_world", "binding"),
}

#: Binding sections whose entries name their binding with ``name`` (not ``binding``): the
#: section, or (section, the list inside it), with its kind and resource field.
_NAMED_SECTIONS = {
    ("send_email", None): ("send_email", "destination_address"),
    ("ratelimits", None): ("ratelimit", "namespace_id"),
    ("logfwdr", "bindings"): ("logfwdr", "destination"),
    ("unsafe", "bindings"): ("unsafe", "type"),
}

#: Binding sections that are one ``{"binding": NAME}`` object.
_SINGLE_SECTIONS = {
    "ai": "ai",
    "browser": "browser",
    "images": "images",
    "version_metadata": "version_metadata",
    "media": "media",
}

#: The module types a rule can name (wrangler's config schema).
MODULE_TYPES = ("ESModule", "CommonJS", "CompiledWasm", "Text", "Data", "PythonModule", "PythonRequirement")


@attrs.frozen
class ModuleRule:
    """A module rule: an import whose specifier a glob matches is a module of ``type``."""

    type: str
    globs: tuple[str, ...]
    fallthrough: bool = False


#: wrangler's default module rules (its documentation, "Bundling"), applied after the config's:
#: ``.txt``, ``.html`` and ``.sql`` imports are text, ``.bin`` an ArrayBuffer, ``.wasm`` a
#: WebAssembly.Module.
DEFAULT_MODULE_RULES = (
    ModuleRule("Text", ("**/*.txt", "**/*.html", "**/*.sql")),
    ModuleRule("Data", ("**/*.bin",)),
    ModuleRule("CompiledWasm", ("**/*.wasm", "**/*.wasm?module")),
)

#: The binding Workers Sites puts in ``env`` (its KV namespace of the site's files).
SITE_BINDING = "__STATIC_CONTENT"


@attrs.frozen(kw_only=True)
class Binding:
    """A binding of a section entry: its kind (``d1``, ``kv``, ``r2``, ``ai``, ...), name and resource."""

    kind: str
    name: str
    resource: str | None
    #: The other fields a registered kind reads of its entry (``BindingKind.fields``), where the entry sets them.
    fields: Mapping[str, str] = attrs.field(factory=dict)
    #: The whole-number fields a registered kind reads of its entry (``BindingKind.int_fields``), where the entry sets them.
    numbers: Mapping[str, int] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class WranglerConfig:
    """The parts of a wrangler config the simulator uses."""

    path: Path
    name: str | None
    #: The environment applied (``env.<name>``), None for the top level.
    environment: str | None
    #: Every environment the config defines, in its order.
    environments: tuple[str, ...]
    #: The entry module from ``main``, resolved against the config's directory.
    main: Path | None
    compatibility_date: str | None
    compatibility_flags: tuple[str, ...]
    bindings: tuple[Binding, ...]
    vars: dict[str, Any]
    #: The config's keys as the checked environment sees them, in its order (what
    #: :func:`.config_sections.assumptions` reads), but those whose value asks for nothing
    #: (``config_sections.says_something``: empty, or wrangler's default).
    sections: tuple[str, ...] = ()
    #: ``define``: identifier -> the JavaScript expression esbuild puts in its place.
    define: Mapping[str, str] = attrs.field(factory=dict)
    #: ``alias``: module name -> its replacement (a relative path resolved against the config's folder).
    alias: Mapping[str, str] = attrs.field(factory=dict)
    #: What each registered binding kind read of the config beyond its bindings
    #: (``BindingKind.read_settings``), by kind: Durable Objects' migrations and containers, the
    #: assets section. :meth:`settings_of` reads it.
    kind_settings: Mapping[str, Any] = attrs.field(factory=dict)
    #: The module rules in force, in order: the config's ``rules``, then wrangler's defaults, a
    #: rule dropped when an earlier rule of its type has no ``fallthrough`` (as wrangler does).
    module_rules: tuple[ModuleRule, ...] = DEFAULT_MODULE_RULES
    #: ``tsconfig``: the TypeScript config esbuild reads (absolute), None to let esbuild find one.
    tsconfig: Path | None = None
    #: ``limits.cpu_ms``: the CPU time one invocation may use before Cloudflare stops it (None
    #: when unset: Cloudflare's default, CPU_MS_DEFAULT).
    cpu_ms: int | None = None
    #: ``no_bundle``: main and the modules under ``base_dir`` the module rules match are loaded as
    #: they are (a module list), as wrangler uploads them, instead of bundled.
    no_bundle: bool = False
    #: ``base_dir`` (absolute): where a no_bundle Worker's modules are found and named from; main's folder when unset.
    base_dir: Path | None = None
    #: ``triggers.crons``: the Cron Triggers' expressions, in the config's order.
    crons: tuple[str, ...] = ()
    #: The user's config when this one is the build's generated config it was redirected to
    #: (``.wrangler/deploy/config.json`` beside it), else None.
    redirected_from: Path | None = None

    @property
    def cpu_limit_ms(self) -> int:
        """The CPU limit an invocation runs under: the config's ``limits.cpu_ms``, else Cloudflare's default."""
        return CPU_MS_DEFAULT if self.cpu_ms is None else self.cpu_ms

    def settings_of(self, kind: str) -> Any:
        """What binding kind ``kind`` read of the config beyond its bindings (None when it read nothing)."""
        return self.kind_settings.get(kind)


def find_config(directory: Path) -> Path:
    """The wrangler config beside a scenario that names none, as wrangler finds it."""
    for name in CONFIG_NAMES:
        candidate = directory / name
        if candidate.is_file():
            return candidate
    raise UserError(
        f"no wrangler config in {directory}: give worker={{'config': './wrangler.jsonc'}} "
        f"in the scenario or add one of {', '.join(CONFIG_NAMES[:2])}"
    )


def read_config(path: str | Path, *, env: str | None = None) -> WranglerConfig:
    """Read and check the wrangler config at ``path``, with environment ``env`` applied when given.

    A config a build tool redirects (``redirected_config``) is read as wrangler deploys it: the
    generated config its build wrote, whose ``redirected_from`` is ``path``.
    """
    config_path = Path(path)
    if not config_path.is_file():
        raise UserError(f"{config_path}: the wrangler config does not exist")
    generated = redirected_config(config_path)
    if generated is not None:
        if env is not None:
            raise UserError(
                f"{config_path}: environment {env!r} was asked for, but the config is redirected to the build's "
                f"generated {generated}, which has its environment applied already; build with CLOUDFLARE_ENV={env} "
                "and name no environment in the scenario, as wrangler asks",
                near=env,
            )
        config = _read_one(generated, None)
        return attrs.evolve(config, redirected_from=config_path.resolve())
    return _read_one(config_path, env)


def source_main(path: str | Path) -> Path | None:
    """The ``main`` the config at ``path`` names, resolved from its folder, as its author wrote
    it: for a config a build redirects, the source entry the build output was made from (a
    Vite plugin config is not a whole config by itself, so nothing else of it is read); None
    when it names none."""
    config_path = Path(path)
    text = _read_text(config_path)
    data = _parse_toml(config_path, text) if config_path.suffix == ".toml" else _parse_jsonc(config_path, text)
    main = data.get("main") if isinstance(data, dict) else None
    return (config_path.parent / main).resolve() if isinstance(main, str) and main else None


def _read_one(config_path: Path, env: str | None) -> WranglerConfig:
    text = _read_text(config_path)
    data = _parse_toml(config_path, text) if config_path.suffix == ".toml" else _parse_jsonc(config_path, text)
    return _from_data(config_path.resolve(), data, env, text)


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"{path}: cannot be read: {error}") from None


def redirected_config(user_config: Path) -> Path | None:
    """The generated config a build redirects ``user_config`` to, as wrangler finds it, else None.

    A build tool (the Cloudflare Vite plugin) writes ``.wrangler/deploy/config.json`` beside the
    user's config, whose ``configPath`` names the config it generated with the build output
    (``dist/<worker>/wrangler.json``); wrangler deploys that one. A project whose package.json
    depends on the Vite plugin has no Worker to check until it is built: without the redirect file
    that is exit 2, naming the build command the package.json gives.
    """
    deploy = user_config.parent / DEPLOY_CONFIG
    if not deploy.is_file():
        vite = _vite_plugin_dependency(user_config.parent)
        if vite is not None:
            manifest, line = vite
            raise UserError(
                f"{user_config}: the Worker is built by the Cloudflare Vite plugin ({manifest}:{line} depends on "
                f"{VITE_PLUGIN}), so it is checked from its build output: expected {deploy}, which the build writes "
                f"to point at the generated wrangler.json, found none; {_build_advice(manifest)}"
            )
        return None
    text = _read_text(deploy)
    data = _parse_jsonc(deploy, text)
    target = data.get("configPath") if isinstance(data, dict) else None
    if not isinstance(target, str) or not target:
        raise UserError(
            f"{deploy}: expected an object whose configPath names the build's generated config (as the Cloudflare "
            f"Vite plugin writes it), found {text.strip()[:200]!r}"
        )
    generated = (deploy.parent / target).resolve()
    if not generated.is_file():
        line = _line_of_key(text, "configPath", None) or 1
        manifest_dir = _package_dir(user_config.parent)
        advice = _build_advice(manifest_dir / "package.json") if manifest_dir else "run the build again"
        raise UserError(
            f"{deploy}:{line}: configPath names {target!r}, the build's generated config, expected at {generated}; "
            f"found no such file (the build output is gone); {advice}"
        )
    return generated


def _package_dir(directory: Path) -> Path | None:
    """The nearest folder from ``directory`` up that holds a package.json, as npm finds the project."""
    for folder in (directory.resolve(), *directory.resolve().parents):
        if (folder / "package.json").is_file():
            return folder
    return None


def _vite_plugin_dependency(directory: Path) -> tuple[Path, int] | None:
    """(package.json, line) where the project's nearest package.json depends on the Vite plugin, else None."""
    folder = _package_dir(directory)
    if folder is None:
        return None
    manifest = folder / "package.json"
    try:
        text = manifest.read_text(encoding="utf-8")
        data = jsonc.loads(text)
    except (OSError, UnicodeDecodeError, jsonc.JsoncError):
        return None
    fields = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")
    if not isinstance(data, dict) or not any(isinstance(data.get(field), dict) and VITE_PLUGIN in data[field] for field in fields):
        return None
    return manifest, _line_of_key(text, VITE_PLUGIN, None) or 1


#: The lock file each package manager writes, and how it runs a package.json script.
_RUNNERS = (("pnpm-lock.yaml", "pnpm run"), ("yarn.lock", "yarn run"), ("bun.lock", "bun run"), ("bun.lockb", "bun run"))


def _build_advice(manifest: Path) -> str:
    """``run `npm run build` first (package.json:5: "build": "vite build")``: the script that runs the build."""
    try:
        text = manifest.read_text(encoding="utf-8")
        data = jsonc.loads(text)
    except (OSError, UnicodeDecodeError, jsonc.JsoncError):
        return "run the project's build (vite build) first"
    scripts = data.get("scripts") if isinstance(data, dict) else None
    scripts = scripts if isinstance(scripts, dict) else {}
    # The build script, else the first whose command runs a Vite build (react-router build runs one).
    name = "build" if isinstance(scripts.get("build"), str) else next(
        (key for key, value in scripts.items() if isinstance(value, str) and re.search(r"\b(vite|react-router) build\b", value)),
        None,
    )
    if name is None:
        return f"run `npx vite build` in {manifest.parent} first ({manifest} has no build script)"
    runner = next((run for lock, run in _RUNNERS if (manifest.parent / lock).is_file()), "npm run")
    line = _line_of_key(text, name, None)
    where = f"{manifest}:{line}" if line is not None else str(manifest)
    return f"run `{runner} {name}` in {manifest.parent} first ({where}: {json.dumps(name)}: {json.dumps(scripts[name])})"


def _parse_jsonc(path: Path, text: str) -> Any:
    try:
        return jsonc.loads(text)
    except jsonc.JsoncError as error:
        raise UserError(f"{path}:{error.line}:{error.column}: not valid JSONC: {error.problem}") from None


def _parse_toml(path: Path, text: str) -> Any:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        problem = str(error)
        at = _TOML_AT.search(problem)
        # tomllib says "(at end of document)" for an error on the last line.
        line, column = (int(at.group(1)), int(at.group(2))) if at else (max(1, len(text.splitlines())), 1)
        problem = _TOML_AT.sub("", problem).replace("(at end of document)", "").strip()
        raise UserError(f"{path}:{line}:{column}: not valid TOML: {problem}") from None


def environment_names(path: Path, data: dict[str, Any]) -> tuple[str, ...]:
    """The environments a parsed config defines (``env.<name>``), in its order."""
    section = data.get("env", {})
    if not isinstance(section, dict) or not all(isinstance(value, dict) for value in section.values()):
        raise UserError(f"{path}: env must be an object of environments, each an object, got {section!r}")
    return tuple(section)


def _with_environment(path: Path, data: dict[str, Any], env: str | None) -> dict[str, Any]:
    """The config as environment ``env`` sees it, by wrangler's inheritance rules."""
    names = environment_names(path, data)
    if env is None:
        return {key: value for key, value in data.items() if key != "env"}
    if env not in names:
        defined = f"it defines {', '.join(repr(name) for name in names)}" if names else "it defines none (no env section)"
        raise UserError(f"{path}: there is no environment {env!r}; {defined}", near=env)
    section = data["env"][env]
    non_inheritable = config_sections.non_inheritable_keys()
    merged = {key: value for key, value in data.items() if key != "env" and key not in non_inheritable}
    merged.update({key: value for key, value in section.items() if key != "env"})
    if "name" not in section and isinstance(data.get("name"), str):
        merged["name"] = f"{data['name']}-{env}"
    return merged


def _compatibility_date(reader: "_Reader", data: dict[str, Any]) -> str | None:
    """The config's compatibility date, checked to be a real calendar date written YYYY-MM-DD."""
    value = data.get("compatibility_date")
    if value is None:
        return None
    if isinstance(value, datetime.date):
        raise reader.error(
            f"compatibility_date must be a quoted string such as \"{value.isoformat()}\", got the TOML date "
            f"{value.isoformat()} (wrangler refuses it too)",
            key="compatibility_date",
            written=value.isoformat(),
        )
    if isinstance(value, str) and _DATE.match(value):
        try:
            datetime.date.fromisoformat(value)
            return value
        except ValueError:
            pass
    raise reader.error(
        f"compatibility_date must be a calendar date written YYYY-MM-DD, such as \"2026-01-01\", got {value!r}",
        key="compatibility_date",
        written=str(value),
    )


def _from_data(path: Path, data: Any, env: str | None = None, text: str = "") -> WranglerConfig:
    reader = _Reader(path, text)
    if not isinstance(data, dict):
        raise reader.error("the top level must be an object")
    environments = environment_names(path, data)
    data = _with_environment(path, data, env)
    _refuse_sections(reader, data)
    main_path = _named_path(reader, path, data, "main")
    flags = data.get("compatibility_flags", [])
    if not isinstance(flags, list) or not all(isinstance(flag, str) for flag in flags):
        raise reader.error("compatibility_flags must be a list of strings")
    variables = data.get("vars", {})
    if not isinstance(variables, dict):
        raise reader.error("vars must be an object")
    return WranglerConfig(
        path=path,
        name=reader.optional_string(data, "name"),
        environment=env,
        environments=environments,
        main=main_path,
        compatibility_date=_compatibility_date(reader, data),
        compatibility_flags=tuple(flags),
        bindings=tuple(_other_bindings(reader, data)),
        vars=dict(variables),
        sections=tuple(key for key, value in data.items() if config_sections.says_something(key, value)),
        define=_string_map(reader, data, "define"),
        alias=_aliases(reader, path, data),
        kind_settings={kind.name: kind.read_settings(reader, data) for kind in binding_kinds.registered()},
        cpu_ms=_cpu_ms(reader, data),
        module_rules=_module_rules(reader, data),
        tsconfig=_named_path(reader, path, data, "tsconfig"),
        no_bundle=_no_bundle(reader, data),
        base_dir=_named_path(reader, path, data, "base_dir", folder=True),
        crons=_crons(reader, data),
    )


def _no_bundle(reader: _Reader, data: dict[str, Any]) -> bool:
    value = data.get("no_bundle", False)
    if not isinstance(value, bool):
        raise reader.error(f"no_bundle must be true or false, got {value!r}", key="no_bundle")
    return value


def _named_path(reader: _Reader, path: Path, data: dict[str, Any], key: str, *, folder: bool = False) -> Path | None:
    """The file (``main``, ``tsconfig``) or the folder (``base_dir``) the config's ``key`` names, relative
    to the config's folder, resolved; None when the key is unset. It must exist."""
    written = reader.optional_string(data, key)
    if written is None:
        return None
    resolved = (path.parent / written).resolve()
    if not (resolved.is_dir() if folder else resolved.is_file()):
        found = "is not a folder" if folder else "does not exist"
        raise reader.error(f"{key} names {written!r}, which {found} ({resolved})", key=key, written=written)
    return resolved


def _module_rules(reader: _Reader, data: dict[str, Any]) -> tuple[ModuleRule, ...]:
    """The config's ``rules`` then wrangler's defaults; once a rule without ``fallthrough`` has
    named a type, later rules of that type are dropped (wrangler warns that it ignores them)."""
    section = data.get("rules", [])
    if not isinstance(section, list):
        raise reader.error(f"rules must be a list of {{type, globs}}, got {section!r}", key="rules")
    rules = []
    for index, entry in enumerate(section):
        where = f"rules[{index}]"
        if not isinstance(entry, dict):
            raise reader.error(f"{where} must be an object with type and globs, got {entry!r}", key="rules")
        kind = entry.get("type")
        if kind not in MODULE_TYPES:
            raise reader.error(f"{where}.type must be one of {', '.join(MODULE_TYPES)}, got {kind!r}", key="type", written=str(kind))
        globs = entry.get("globs")
        if not isinstance(globs, list) or not globs or not all(isinstance(glob, str) and glob for glob in globs):
            raise reader.error(f"{where}.globs must be a non-empty list of glob strings, got {globs!r}", key="globs")
        fallthrough = entry.get("fallthrough", False)
        if not isinstance(fallthrough, bool):
            raise reader.error(f"{where}.fallthrough must be true or false, got {fallthrough!r}", key="fallthrough")
        rules.append(ModuleRule(kind, tuple(globs), fallthrough))
    kept: list[ModuleRule] = []
    completed: set[str] = set()
    for rule in [*rules, *DEFAULT_MODULE_RULES]:
        if rule.type in completed:
            continue
        kept.append(rule)
        if not rule.fallthrough:
            completed.add(rule.type)
    return tuple(kept)


def _crons(reader: _Reader, data: dict[str, Any]) -> tuple[str, ...]:
    """``triggers.crons``: a list of cron expressions (strings), none when unset."""
    triggers = data.get("triggers")
    if triggers is None:
        return ()
    if not isinstance(triggers, dict):
        raise reader.error("triggers must be an object (crons)", key="triggers")
    crons = triggers.get("crons", [])
    if not isinstance(crons, list) or not all(isinstance(item, str) and item.strip() for item in crons):
        raise reader.error(f"triggers.crons must be a list of cron expressions (strings), got {crons!r}", key="crons")
    return tuple(crons)


def _cpu_ms(reader: _Reader, data: dict[str, Any]) -> int | None:
    """``limits.cpu_ms`` (1 to CPU_MS_MAX milliseconds, as Cloudflare accepts), or None when unset."""
    limits = data.get("limits")
    if limits is None:
        return None
    if not isinstance(limits, dict):
        raise reader.error("limits must be an object (cpu_ms)", key="limits")
    cpu_ms = reader.optional_int(limits, "cpu_ms", "limits")
    if cpu_ms is not None and not 1 <= cpu_ms <= CPU_MS_MAX:
        raise reader.error(f"limits.cpu_ms must be between 1 and {CPU_MS_MAX} milliseconds, got {cpu_ms}", key="cpu_ms")
    return cpu_ms


@attrs.frozen
class _Reader:
    """Field access that turns a shape mismatch into a UserError naming the field."""

    path: Path
    #: The config's text, where a field's line is looked for.
    text: str = ""

    def error(self, problem: str, *, key: str | None = None, written: str | None = None) -> UserError:
        """``path: problem``, or ``path:line: problem`` when ``key`` is given and a line of the text
        sets it (to a value containing ``written``, when given: an environment may set it again)."""
        # Without a key, the field the problem starts with (``max_retries in ...``,
        # ``queues.consumers[0] needs ...``: consumers) is the one whose line is looked for.
        found = key if key is not None else _leading_field(problem)
        line = _line_of_key(self.text, found, written) if found is not None else None
        return UserError(f"{self.path}:{line}: {problem}" if line is not None else f"{self.path}: {problem}")

    def entries(self, data: dict[str, Any], section: str) -> list[dict[str, Any]]:
        value = data.get(section, [])
        if not isinstance(value, list) or not all(isinstance(entry, dict) for entry in value):
            raise self.error(f"{section} must be a list of objects")
        return value

    def string(self, entry: dict[str, Any], field: str, where: str) -> str:
        value = entry.get(field)
        if not isinstance(value, str) or not value:
            raise self.error(f"{where} needs {field} (a non-empty string), got {value!r}")
        return value

    def optional_string(self, entry: dict[str, Any], field: str, where: str = "the config") -> str | None:
        value = entry.get(field)
        if value is not None and not isinstance(value, str):
            raise self.error(f"{field} in {where} must be a string, got {value!r}")
        return value

    def refuse_duplicates(self, section: str, names: list[str]) -> None:
        """Refuse a section naming one binding twice."""
        _refuse_duplicates(self, section, names)

    def optional_int(self, entry: dict[str, Any], field: str, where: str) -> int | None:
        value = entry.get(field)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise self.error(f"{field} in {where} must be an integer, got {value!r}")
        return value


_LEADING_FIELD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?:\[\d+\])?(?:\.([A-Za-z_]\w*))?\s")


def _leading_field(problem: str) -> str | None:
    """The config field a problem starts with: its last name (``queues.consumers[0]``: consumers;
    ``migrations[0].new_classes``: new_classes)."""
    match = _LEADING_FIELD.match(problem)
    if match is None:
        return None
    return match.group(2) or match.group(1).split(".")[-1]


def _line_of_key(text: str, key: str, written: str | None) -> int | None:
    """The first line that sets ``key`` (``key =`` in TOML, ``"key":`` in JSONC) to a value holding ``written``."""
    setter = re.compile(rf"""(^|[\s{{,])["']?{re.escape(key)}["']?\s*[:=]""")
    for number, line in enumerate(text.splitlines(), start=1):
        if setter.search(line) and (written is None or written in line):
            return number
    return None


def _other_bindings(reader: _Reader, data: dict[str, Any]) -> list[Binding]:
    bindings = []
    for registered in binding_kinds.registered():
        # A kind whose section has another shape reads it itself (the assets' one object).
        read = registered.read_bindings(reader, data)
        bindings += read if read is not None else _kind_bindings(reader, data, registered)
    for section, (kind, resource_field) in _LIST_SECTIONS.items():
        # wrangler allows `send_email` etc. to be absent; a present one must be a list.
        for index, entry in enumerate(reader.entries(data, section)):
            where = f"{section}[{index}]"
            bindings.append(
                Binding(
                    kind=kind,
                    name=reader.string(entry, "binding", where),
                    resource=_resource(entry.get(resource_field)),
                )
            )
    for (section, inner), (kind, resource_field) in _NAMED_SECTIONS.items():
        holder = data
        if inner is not None:
            holder = data.get(section) or {}
            if not isinstance(holder, dict):
                raise reader.error(f"{section} must be an object with {inner}")
        for index, entry in enumerate(reader.entries(holder, inner or section)):
            where = f"{section}.{inner}[{index}]" if inner else f"{section}[{index}]"
            bindings.append(
                Binding(kind=kind, name=reader.string(entry, "name", where), resource=_resource(entry.get(resource_field)))
            )
    for section, kind in _SINGLE_SECTIONS.items():
        single = data.get(section)
        if single is None:
            continue
        if not isinstance(single, dict):
            raise reader.error(f"{section} must be an object with a binding")
        bindings.append(Binding(kind=kind, name=reader.string(single, "binding", section), resource=None))
    if data.get("site") is not None:
        bindings.append(Binding(kind="site", name=SITE_BINDING, resource=None))
    return bindings


def _kind_bindings(reader: _Reader, data: dict[str, Any], kind: binding_kinds.BindingKind) -> list[Binding]:
    """A registered kind's bindings from its section (``key``, or ``key.list`` inside an object):
    each entry's binding, its resource and the fields the kind reads (strings, and whole numbers
    in their ranges); a binding named twice is refused."""
    holder, _, inner = kind.section.rpartition(".")
    if holder:
        data = data.get(holder, {})
        if not isinstance(data, dict):
            # The lists it holds, named as the message always has (queues: producers and consumers).
            inners = sorted((other.section.rpartition(".")[2] for other in binding_kinds.registered() if other.top_section == holder), reverse=True)
            raise reader.error(f"{holder} must be an object with {' and '.join(inners)}")
    bindings = []
    for index, entry in enumerate(reader.entries(data, inner)):
        where = f"{kind.section}[{index}]"
        name = reader.string(entry, kind.binding_field, where)
        if kind.resource_required:
            resource: str | None = reader.string(entry, kind.resource_field, where)
        else:
            resource = reader.optional_string(entry, kind.resource_field, where)
        fields = {field: value for field in kind.fields if (value := reader.optional_string(entry, field, where)) is not None}
        numbers = {}
        for field, (least, most, unit) in kind.int_fields.items():
            number = reader.optional_int(entry, field, where)
            if number is None:
                continue
            if not least <= number <= most:
                raise reader.error(f"{field} in {where} must be between {least} and {most}{unit}, got {number}")
            numbers[field] = number
        bindings.append(Binding(kind=kind.name, name=name, resource=resource, fields=fields, numbers=numbers))
    _refuse_duplicates(reader, kind.section, [binding.name for binding in bindings])
    return bindings


def _refuse_sections(reader: _Reader, data: dict[str, Any]) -> None:
    """A section the check cannot run a Worker with (the table's ``refused`` rows) is refused."""
    for key, value in data.items():
        row = config_sections.section(key)
        if row is not None and row.treatment == "refused" and config_sections.says_something(key, value):
            raise reader.error(f"{key}: {row.does}", key=key)


def _string_map(reader: _Reader, data: dict[str, Any], section: str) -> dict[str, str]:
    value = data.get(section, {})
    if not isinstance(value, dict) or not all(isinstance(item, str) for item in value.values()):
        raise reader.error(f"{section} must be an object of strings, got {value!r}", key=section)
    return dict(value)


def _aliases(reader: _Reader, path: Path, data: dict[str, Any]) -> dict[str, str]:
    """``alias`` with each relative replacement (``./``, ``../``) made absolute from the config's folder."""
    aliases = _string_map(reader, data, "alias")
    return {
        name: str((path.parent / target).resolve()) if target.startswith(("./", "../")) else target
        for name, target in aliases.items()
    }


def _resource(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _refuse_duplicates(reader: _Reader, section: str, names: list[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise reader.error(f"{section} names {name!r} twice")
        seen.add(name)
