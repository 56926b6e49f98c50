"""What a Worker's ``env`` holds besides bindings: vars and secrets, and keeping secrets unseen.

Three sources, later ones winning a name, as wrangler layers them for ``wrangler dev``:

1. ``vars`` in the wrangler config (the environment's, when one is applied): plain values;
2. ``.dev.vars`` beside the config, or ``.dev.vars.<env>`` instead of it when an
   environment is applied and that file exists; when neither exists, the ``.env`` files
   wrangler reads instead (``.env``, ``.env.<env>``, ``.env.local``, ``.env.<env>.local``,
   a later one winning a name): dotenv syntax, every value a secret (wrangler reads these
   files as the Worker's local secrets);
3. the scenario's ``worker={"vars": {...}, "secrets": {...}}``.

A secret's value reaches the Worker's ``env`` and nothing else: every string of a run's
result (effect payloads and results, snapshots, the end's detail) has each secret value
replaced by ``<secret NAME>`` (:func:`redact`) before the engine sees it, so traces, reports,
JSON and regression tests show names only. A value shorter than :data:`SECRET_SUBSTRING_MIN`
characters is replaced only where a whole string equals it, since replacing two characters
inside every string would garble the trace; such a secret is not hidden inside longer text.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping, Sequence

import attrs

from eutaxy.core.errors import UserError

__all__ = [
    "SECRET_SUBSTRING_MIN", "WorkerVariables", "dev_vars_path", "parse_dev_vars", "redact", "secret_files", "worker_variables",
]

#: Secret values at least this long are hidden wherever they occur inside a string.
SECRET_SUBSTRING_MIN = 4

#: A dotenv assignment: an optional ``export``, a name, ``=``, the rest of the line.
_ASSIGNMENT = re.compile(r"^(?:export\s+)?([A-Za-z0-9_.-]+)\s*=\s*(.*)$")

#: The quotes dotenv takes around a value: single and backtick are literal, double expands \n and \r.
_QUOTES = ("'", '"', "`")


@attrs.frozen(kw_only=True)
class WorkerVariables:
    """The values the Worker's ``env`` holds besides its bindings, and which are secret."""

    #: Name -> value, every source merged (the load message's ``vars``). Never printed.
    values: Mapping[str, Any] = attrs.field(repr=False)
    #: Name -> value of each secret (a subset of ``values``), for :func:`redact`. Never printed.
    secrets: Mapping[str, str] = attrs.field(repr=False)
    #: Name -> where its value came from ("wrangler.toml", ".dev.vars", "the scenario").
    sources: Mapping[str, str]

    def __attrs_post_init__(self) -> None:
        assert set(self.secrets) <= set(self.values), sorted(self.secrets)
        assert set(self.sources) == set(self.values), sorted(self.sources)

    def assumption(self) -> str | None:
        """The verdict's sentence naming the vars and secrets (names and sources, never a secret's value)."""
        if not self.values:
            return None
        plain = [f"{name} ({self.sources[name]})" for name in self.values if name not in self.secrets]
        hidden = [f"{name} ({self.sources[name]})" for name in self.values if name in self.secrets]
        parts = []
        if plain:
            parts.append(f"vars {', '.join(plain)}")
        if hidden:
            parts.append(
                f"secrets {', '.join(hidden)}, whose values are shown nowhere: each is written <secret NAME> in "
                "traces and reports"
            )
        return f"The Worker's env holds {' and '.join(parts)}; a later source wins a name (config < .dev.vars or .env files < scenario)."


def dev_vars_path(config_path: Path, env: str | None) -> Path | None:
    """The dotenv file wrangler reads beside the config: ``.dev.vars.<env>`` if it exists, else ``.dev.vars``."""
    directory = config_path.parent
    if env is not None and (directory / f".dev.vars.{env}").is_file():
        return directory / f".dev.vars.{env}"
    plain = directory / ".dev.vars"
    return plain if plain.is_file() else None


def secret_files(config_path: Path, env: str | None) -> tuple[Path, ...]:
    """The dotenv files wrangler reads the Worker's local secrets from, a later one winning a name.

    ``.dev.vars.<env>`` or ``.dev.vars`` alone when one exists (:func:`dev_vars_path`); else each
    of ``.env``, ``.env.<env>``, ``.env.local`` and ``.env.<env>.local`` that exists, least
    specific first, as wrangler merges them (Cloudflare's "Environment variables and secrets"
    for local development: use either ``.dev.vars`` or ``.env``, never both).
    """
    dev_vars = dev_vars_path(config_path, env)
    if dev_vars is not None:
        return (dev_vars,)
    directory = config_path.parent
    names = [".env", f".env.{env}", ".env.local", f".env.{env}.local"] if env is not None else [".env", ".env.local"]
    return tuple(directory / name for name in names if (directory / name).is_file())


def parse_dev_vars(text: str, path: Path) -> dict[str, str]:
    """The names and values of a ``.dev.vars`` file, in dotenv syntax.

    ``NAME=value`` per line (an ``export`` before it is allowed); blank lines and ``#``
    comments are skipped; an unquoted value ends at ``#`` and is trimmed; a value in single
    quotes or backticks is taken as written, in double quotes with ``\\n`` and ``\\r``
    expanded, and a quoted value may span lines; a later line wins a name. A line that is not
    an assignment is refused naming its line (dotenv skips it silently, which would hide a
    typo), and no message quotes a value, since each is a secret.
    """
    lines = text.splitlines()
    values: dict[str, str] = {}
    index = 0
    while index < len(lines):  # bounded: every pass consumes at least one line
        line_number = index + 1
        line = lines[index].strip()
        index += 1
        if not line or line.startswith("#"):
            continue
        match = _ASSIGNMENT.match(line)
        if match is None:
            raise UserError(f"{path}:{line_number}: expected NAME=value (dotenv syntax); this line is not an assignment")
        name, rest = match.groups()
        if rest[:1] not in _QUOTES:
            values[name] = rest.split("#", 1)[0].strip()
            continue
        quote, collected = rest[0], rest[1:]
        end = _closing(collected, quote)
        while end < 0:  # bounded by the file's lines
            if index >= len(lines):
                raise UserError(f"{path}:{line_number}: the value of {name} opens a {quote} quote that never closes")
            collected += "\n" + lines[index]
            index += 1
            end = _closing(collected, quote)
        tail = collected[end + 1 :].strip()
        if tail and not tail.startswith("#"):
            raise UserError(f"{path}:{line_number}: the value of {name} has text after its closing {quote} quote")
        value = collected[:end]
        if quote == '"':
            value = value.replace("\\n", "\n").replace("\\r", "\r").replace('\\"', '"')
        values[name] = value
    return values


def _closing(text: str, quote: str) -> int:
    """Where ``quote`` closes in ``text`` (a backslash escapes a double quote), or -1."""
    position = 0
    while position < len(text):  # bounded by the text's length
        char = text[position]
        if quote == '"' and char == "\\":
            position += 2
            continue
        if char == quote:
            return position
        position += 1
    return -1


def worker_variables(
    config_vars: Mapping[str, Any],
    config_name: str,
    dev_vars: Sequence[Path],
    scenario_vars: Mapping[str, Any],
    scenario_secrets: Mapping[str, str],
) -> WorkerVariables:
    """Merge the three sources, later ones winning a name, and mark which values are secret."""
    values: dict[str, Any] = {}
    secrets: dict[str, str] = {}
    sources: dict[str, str] = {}

    def put(items: Mapping[str, Any], source: str, secret: bool) -> None:
        for name, value in items.items():
            values[name] = value
            sources[name] = source
            if secret:
                secrets[name] = value
            else:
                secrets.pop(name, None)

    put(config_vars, config_name, secret=False)
    for path in dev_vars:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise UserError(f"{path}: cannot be read: {error}") from None
        put(parse_dev_vars(text, path), path.name, secret=True)
    put(scenario_vars, "the scenario", secret=False)
    put(scenario_secrets, "the scenario", secret=True)
    return WorkerVariables(values=values, secrets=secrets, sources=sources)


def redact(value: Any, secrets: Mapping[str, str]) -> Any:
    """``value`` (plain data) with every secret's value replaced by ``<secret NAME>`` in its strings."""
    if not secrets:
        return value
    # Longer values first, so a secret that contains another is replaced whole.
    ordered = sorted(((text, name) for name, text in secrets.items() if text), key=lambda item: (-len(item[0]), item[1]))
    return _redact(value, ordered, depth=0)


#: How deep plain data nests before redact gives up: a run's result is a few levels deep; a
#: cycle or runaway nesting is Eutaxy's bug.
_DEPTH_MAX = 200


def _redact(value: Any, ordered: list[tuple[str, str]], depth: int) -> Any:
    assert depth < _DEPTH_MAX, "plain data nested deeper than any run result"
    if isinstance(value, str):
        for text, name in ordered:
            if value == text:
                return f"<secret {name}>"
            if len(text) >= SECRET_SUBSTRING_MIN and text in value:
                value = value.replace(text, f"<secret {name}>")
        return value
    if isinstance(value, dict):
        return {key: _redact(item, ordered, depth + 1) for key, item in value.items()}
    if isinstance(value, list):
        return [_redact(item, ordered, depth + 1) for item in value]
    return value
