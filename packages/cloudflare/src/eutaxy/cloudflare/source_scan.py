"""Reading a Worker's source as text: its entry points, the URLs it fetches, the paths it routes.

``eutaxy draft`` must cost nothing and cannot fail on the Worker's own imports, so the
Worker is never imported, bundled or run: this module tokenizes JavaScript and TypeScript
(comments, strings, template literals with their ``${...}`` substitutions, regular
expression literals) and reads a few shapes from the tokens:

- the handlers of the default export (``fetch``, ``queue``, ``scheduled``, …): methods,
  properties or shorthands at the top level of ``export default {...}`` or of the default
  exported class, or of the object or class a default-exported name is bound to; a name
  bound to ``new Something(...)`` (a Hono or itty router) is taken to answer ``fetch``, a
  guess the draft says it made;
- the outbound requests: ``fetch(...)`` and ``new Request(...)`` whose first argument is a
  string literal, a template literal whose host is literal, or a name bound once to either
  (``const CHARGES_URL = "https://..."``), with the ``method`` a literal init object gives;
  every other first argument is a URL built at run time, which is counted, not guessed;
- the paths the code routes on (``pathname === "/orders"``, ``case "/orders":``, a
  router's ``.post("/orders", ...)``) and the request methods it compares, as hints for
  the events the author writes;
- the modules imported by relative path, which are scanned the same way.

What a text scan cannot see (a URL assembled at run time, a handler attached
dynamically) is left out, and the draft says what it could not read. Every loop is
bounded by the text's length or the module limit.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, Iterator
from urllib.parse import urlsplit

import attrs

__all__ = ["D1Statement", "Fetch", "Route", "SourceScan", "Token", "body_example", "scan_worker", "tokenize"]

#: The most modules one scan reads (the entry and what it imports by relative path): a
#: Worker's own code, not a vendored library tree.
MODULES_MAX = 200

#: The largest module read, in bytes; a bigger file (a bundled dependency) is skipped and named.
MODULE_BYTES_MAX = 2_000_000

#: The handlers a Worker's default export may have, as the runtime calls them.
HANDLER_NAMES = ("fetch", "queue", "scheduled", "email", "tail", "trace", "test")

#: Extensions tried, in order, for an import without one (TypeScript's and bundlers' order).
_SCRIPT_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")

#: An import written with a JavaScript extension may name a TypeScript file (TypeScript's
#: own rule for ``import "./x.js"``).
_TS_TWINS = {".js": (".ts", ".tsx"), ".mjs": (".mts",), ".cjs": (".cts",), ".jsx": (".tsx",)}

#: Punctuation after which a ``/`` starts a regular expression rather than a division.
_REGEX_AFTER_PUNCT = frozenset("(,=:[!&|?{};+-*%<>~^")
#: Keywords after which a ``/`` starts a regular expression.
_REGEX_AFTER_WORDS = frozenset(
    {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "instanceof", "yield", "await"}
)

_HOST = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$")
_HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_ROUTER_METHODS = {"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH", "delete": "DELETE", "head": "HEAD", "options": "OPTIONS"}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


@attrs.frozen
class Token:
    """One token: ``ident``, ``string``, ``template`` (a literal piece), ``number``, ``regex`` or ``punct``."""

    kind: str
    #: The identifier, the punctuation, or a string's or template piece's decoded text.
    value: str
    line: int
    #: For a template piece: whether a ``${`` substitution follows it.
    open: bool = False


@attrs.frozen(kw_only=True)
class Fetch:
    """An outbound request the code makes by a literal URL."""

    host: str
    #: The URL's path: exact, or its literal prefix followed by ``*`` (an external route's
    #: prefix form) when the rest is substituted at run time (``/v2/${id}`` -> ``/v2/*``).
    path: str
    #: The method its literal init names, GET when it has none, None when the init is not literal.
    method: str | None
    #: ``file:line`` relative to the scan's root.
    where: str
    #: True when the URL's host ended a template literal's literal head (``https://host${path}``).
    host_guessed: bool = False
    #: The top-level keys of a ``body: JSON.stringify({...})`` the init writes out, each with
    #: the name its value reads (``to: email`` -> ("to", "email"); None for any other value).
    body_keys: tuple[tuple[str, str | None], ...] = ()
    #: How the code reads the reply: ``json`` (``reply.json()``), ``text`` (``reply.text()``),
    #: or None when the scan saw neither (the reply bound to no name, or read another way).
    reads: str | None = None


@attrs.frozen(kw_only=True)
class D1Statement:
    """A statement the code prepares on a binding: ``env.DB.prepare(SQL).bind(a, b)``."""

    #: The name the statement is prepared on (``DB`` in ``env.DB.prepare``).
    binding: str
    #: The statement's SQL, when it is a literal (or a name bound to one); None otherwise.
    sql: str | None
    #: Each bound argument's last name (``message.body.orderId`` -> ``orderId``), None for
    #: an argument that is not a name or a member; empty without ``.bind(...)``.
    args: tuple[str | None, ...]
    where: str


@attrs.frozen(kw_only=True)
class Route:
    """A path the code compares a request's path to, or a router registers."""

    path: str
    method: str | None
    where: str
    #: Where the prefix the path carries was read (a router's ``route("/api", sub)``, its
    #: ``base``), None when the path is as written.
    mounted_by: str | None = None
    #: The router the path was registered on (``app`` in ``app.post(...)``), for mounting.
    owner: str | None = attrs.field(default=None, eq=False, repr=False)


@attrs.frozen(kw_only=True)
class SourceScan:
    """What the text of a Worker's modules shows."""

    entry: Path
    #: The default export's handlers, in the order of HANDLER_NAMES.
    handlers: tuple[str, ...]
    #: How the handlers were read: ``object``, ``class``, ``bound object``, ``bound class``,
    #: ``router`` (a name bound to ``new X(...)``: fetch, a guess) or ``none``.
    export_shape: str
    fetches: tuple[Fetch, ...]
    #: ``file:line`` of each fetch whose URL is built at run time.
    dynamic_fetches: tuple[str, ...]
    routes: tuple[Route, ...]
    #: Request methods the code compares ``request.method`` to.
    methods: tuple[str, ...]
    #: Whether the code calls ``routeAgentRequest`` (an Agents SDK Worker).
    routes_agents: bool
    #: Header names sent literally that suggest a deduplication key (``Idempotency-Key``).
    idempotency_headers: tuple[str, ...]
    #: The fields of the type the code reads a request's or a message's body as
    #: (``request.json<Order>()``, ``MessageBatch<Payment>``), each (name, first word of its
    #: type), when that type is declared in a scanned module; empty otherwise.
    body_fields: tuple[tuple[str, str], ...]
    #: The name of that type, when one was read.
    body_type: str | None
    #: The fields of the type a message's body is read as (``MessageBatch<Payment>``, a
    #: WebSocket message ``JSON.parse(String(message)) as {...}``), and its name; empty and
    #: None when none was read. ``body_fields`` is the request's, else these.
    message_fields: tuple[tuple[str, str], ...] = ()
    message_type: str | None = None
    #: Names the code reads from ``env`` (``env.API_TOKEN``, ``this.env.DB``), sorted; not
    #: Vite's ``import.meta.env.MODE``, which the build fills in.
    env_names: tuple[str, ...]
    #: Whether the code reads an incoming request's body (``request.json()``, ``.text()``,
    #: ``.formData()``, ``.arrayBuffer()`` on a name ``request`` or ``req``, or Hono's ``c.req``).
    reads_body: bool = False
    #: Request headers the code reads and answers a 400 near (a header it requires), each
    #: ``(name, file:line)``, in the order found.
    required_headers: tuple[tuple[str, str], ...] = ()
    #: The D1 statements the code prepares, in the order found.
    d1_statements: tuple[D1Statement, ...] = ()
    #: The Durable Objects the code addresses by name (``env.COUNTER.getByName(x)``,
    #: ``idFromName(x)``): ``(binding, the argument's last name or None, the name when it is a
    #: string literal or None, file:line)``.
    object_names: tuple[tuple[str, str | None, str | None, str], ...] = ()
    #: The literal SQL a Durable Object runs on its own database (``this.ctx.storage.sql.exec("...")``,
    #: the Agents SDK's ``this.sql`...```), in the order found.
    object_sql: tuple[str, ...] = ()
    #: The ``put`` calls on a binding (``env.FILES.put(key, body)``: an R2 bucket's or a KV
    #: namespace's): ``(binding, the key argument's last name or None, file:line)``.
    binding_puts: tuple[tuple[str, str | None, str], ...] = ()
    #: The method calls on a binding (``env.ORDERS.reserve(...)``, ``this.env.ORDERS.fetch(...)``):
    #: ``(binding, method, file:line)``, in the order found.
    binding_calls: tuple[tuple[str, str, str], ...] = ()
    #: The Agents SDK handlers some class defines (``onRequest``, ``onMessage``, ``onConnect``), in that order.
    agent_handlers: tuple[str, ...] = ()
    #: The entry's named exports of classes extending ``WorkerEntrypoint`` (``export class
    #: Ledger extends WorkerEntrypoint<Env> {...}``), each with the methods it defines, in order.
    entrypoints: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: Each such method's parameters, ``(name, first word of its type)``, by ``(class, method)``.
    entrypoint_params: dict[tuple[str, str], tuple[tuple[str, str], ...]] = attrs.field(factory=dict)
    #: Modules scanned, relative to the root, entry first.
    modules: tuple[str, ...]
    #: Modules named but not read (missing, too large, over the limit), each with why.
    skipped: tuple[str, ...]


# --- the tokenizer -------------------------------------------------------------------


def tokenize(text: str) -> list[Token]:
    """The significant tokens of JavaScript or TypeScript source (comments dropped).

    Template literals give one ``template`` token per literal piece; the substitutions'
    tokens come between them, so braces stay balanced. Unterminated strings, comments and
    templates end at the text's end; nothing here raises on odd input.
    """
    return list(_Tokenizer(text).tokens())


class _Tokenizer:
    __slots__ = ("text", "index", "line", "previous", "braces")

    def __init__(self, text: str) -> None:
        self.text = text
        self.index = 0
        self.line = 1
        self.previous: Token | None = None
        #: One entry per open brace: True when it is a template's ``${`` (its ``}`` resumes the template).
        self.braces: list[bool] = []

    def tokens(self) -> Iterator[Token]:
        text = self.text
        while self.index < len(text):
            start = self.index
            token = self._next()
            assert self.index > start, "every step consumes text"
            if token is not None:
                self.previous = token
                yield token

    def _next(self) -> Token | None:
        text, i = self.text, self.index
        char = text[i]
        if char == "\n":
            self.line += 1
            self.index += 1
            return None
        if char.isspace():
            self.index += 1
            return None
        if text.startswith("//", i):
            end = text.find("\n", i)
            self.index = len(text) if end < 0 else end
            return None
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = len(text) if end < 0 else end + 2
            self.line += text.count("\n", i, end)
            self.index = end
            return None
        if char in "'\"":
            return self._string(char)
        if char == "`":
            self.index += 1
            return self._template_piece()
        if char.isalpha() or char in "_$" or ord(char) > 127:
            end = i + 1
            while end < len(text) and (text[end].isalnum() or text[end] in "_$" or ord(text[end]) > 127):
                end += 1
            self.index = end
            return Token("ident", text[i:end], self.line)
        if char.isdigit():
            end = i + 1
            while end < len(text) and (text[end].isalnum() or text[end] in "._"):
                end += 1
            self.index = end
            return Token("number", text[i:end], self.line)
        if char == "/" and self._regex_allowed():
            return self._regex()
        self.index += 1
        if char == "{":
            self.braces.append(False)
        elif char == "}":
            if self.braces and self.braces.pop():
                return self._template_piece()
        return Token("punct", char, self.line)

    def _regex_allowed(self) -> bool:
        previous = self.previous
        if previous is None:
            return True
        if previous.kind == "punct":
            return previous.value in _REGEX_AFTER_PUNCT
        return previous.kind == "ident" and previous.value in _REGEX_AFTER_WORDS

    def _string(self, quote: str) -> Token:
        text, line = self.text, self.line
        i = self.index + 1
        value: list[str] = []
        while i < len(text) and text[i] != quote and text[i] != "\n":
            if text[i] == "\\" and i + 1 < len(text):
                escaped = text[i + 1]
                if escaped == "\n":
                    self.line += 1
                else:
                    value.append(_ESCAPES.get(escaped, escaped))
                i += 2
                continue
            value.append(text[i])
            i += 1
        self.index = min(i + 1, len(text)) if i < len(text) and text[i] == quote else i
        return Token("string", "".join(value), line)

    def _template_piece(self) -> Token:
        """A template's literal text up to its end or its next ``${`` (the opening backtick
        or the substitution's closing brace already consumed)."""
        text, line = self.text, self.line
        i = self.index
        value: list[str] = []
        while i < len(text):
            char = text[i]
            if char == "`":
                self.index = i + 1
                return Token("template", "".join(value), line)
            if char == "$" and text.startswith("${", i):
                self.index = i + 2
                self.braces.append(True)
                return Token("template", "".join(value), line, open=True)
            if char == "\\" and i + 1 < len(text):
                value.append(_ESCAPES.get(text[i + 1], text[i + 1]))
                self.line += text[i + 1] == "\n"
                i += 2
                continue
            if char == "\n":
                self.line += 1
            value.append(char)
            i += 1
        self.index = len(text)
        return Token("template", "".join(value), line)

    def _regex(self) -> Token:
        text, line = self.text, self.line
        i = self.index + 1
        in_class = False
        while i < len(text) and text[i] != "\n":
            char = text[i]
            if char == "\\":
                i += 2
                continue
            if char == "[":
                in_class = True
            elif char == "]":
                in_class = False
            elif char == "/" and not in_class:
                break
            i += 1
        end = min(i + 1, len(text))
        while end < len(text) and text[end].isalpha():
            end += 1
        start, self.index = self.index, max(end, self.index + 1)
        return Token("regex", text[start : self.index], line)


# --- reading the tokens --------------------------------------------------------------


def _matching(tokens: list[Token], start: int, opening: str, closing: str) -> int:
    """The index of the token closing the bracket at ``start`` (the last token when unclosed)."""
    assert tokens[start].value == opening
    depth = 0
    for index in range(start, len(tokens)):
        token = tokens[index]
        if token.kind != "punct":
            continue
        if token.value == opening:
            depth += 1
        elif token.value == closing:
            depth -= 1
            if depth == 0:
                return index
    return len(tokens) - 1


def _is(tokens: list[Token], index: int, kind: str, value: str | None = None) -> bool:
    if not 0 <= index < len(tokens):
        return False
    token = tokens[index]
    return token.kind == kind and (value is None or token.value == value)


def _members(tokens: list[Token], opening: int, closing: int, brackets: str, separators: str) -> Iterator[int]:
    """Where each member of the braced list ``tokens[opening..closing]`` starts: a name or string at
    the list's own depth (``brackets`` pairs, openers then closers, nest) right after one of ``separators``."""
    half = len(brackets) // 2
    opens, closes = brackets[:half], brackets[half:]
    depth = 0
    for cursor in range(opening + 1, closing):
        token = tokens[cursor]
        if token.kind == "punct" and token.value in opens:
            depth += 1
        elif token.kind == "punct" and token.value in closes:
            depth -= 1
        elif depth == 0 and token.kind in ("ident", "string") and _is(tokens, cursor - 1, "punct") and tokens[cursor - 1].value in separators:
            yield cursor


def _bindings(tokens: list[Token]) -> dict[str, int]:
    """Where each name is first bound by ``const|let|var NAME [: type] =``: the index of its value's first token."""
    bound: dict[str, int] = {}
    for index, token in enumerate(tokens):
        if token.kind != "ident" or token.value not in ("const", "let", "var") or not _is(tokens, index + 1, "ident"):
            continue
        name = tokens[index + 1].value
        cursor = index + 2
        if _is(tokens, cursor, "punct", ":"):
            # A type annotation: skip to the '=' at this level (bounded by the statement).
            while cursor < len(tokens) and not _is(tokens, cursor, "punct", "=") and not _is(tokens, cursor, "punct", ";"):
                cursor += 1
        if _is(tokens, cursor, "punct", "=") and name not in bound:
            bound[name] = cursor + 1
    return bound


def _classes(tokens: list[Token]) -> dict[str, int]:
    """Where each ``class NAME`` body opens (the index of its ``{``)."""
    found: dict[str, int] = {}
    for index, token in enumerate(tokens):
        if token.kind == "ident" and token.value == "class" and _is(tokens, index + 1, "ident"):
            body = _body_after(tokens, index + 2)
            if body is not None:
                found.setdefault(tokens[index + 1].value, body)
    return found


def _body_after(tokens: list[Token], start: int) -> int | None:
    """The first ``{`` at or after ``start`` before any ``;`` (a class's body)."""
    for index in range(start, len(tokens)):
        if _is(tokens, index, "punct", "{"):
            return index
        if _is(tokens, index, "punct", ";"):
            return None
    return None


def _default_export(tokens: list[Token]) -> tuple[str, int | None]:
    """The default export's shape and the index of the ``{`` whose top level holds its handlers."""
    for index, token in enumerate(tokens):
        if not (token.kind == "ident" and token.value == "export"):
            continue
        if _is(tokens, index + 1, "punct", "{"):
            # ``export { name as default }``: the default export is ``name`` (a bundler's output).
            closing = _matching(tokens, index + 1, "{", "}")
            named = [
                tokens[cursor - 2].value
                for cursor in range(index + 2, closing)
                if _is(tokens, cursor, "ident", "default") and _is(tokens, cursor - 1, "ident", "as") and _is(tokens, cursor - 2, "ident")
            ]
            if not named:
                continue
            return _named_export(tokens, named[0])
        if not _is(tokens, index + 1, "ident", "default"):
            continue
        cursor = index + 2
        if _is(tokens, cursor, "punct", "{"):
            return "object", cursor
        if _is(tokens, cursor, "ident", "class"):
            body = _body_after(tokens, cursor + 1)
            return ("class", body) if body is not None else ("none", None)
        if _is(tokens, cursor, "ident"):
            return _named_export(tokens, tokens[cursor].value)
        return "none", None
    return "none", None


def _named_export(tokens: list[Token], name: str) -> tuple[str, int | None]:
    """The shape of a default export that names ``name``: the object or class it is bound to."""
    value = _bindings(tokens).get(name)
    if value is not None and _is(tokens, value, "punct", "{"):
        return "bound object", value
    if value is not None and _is(tokens, value, "ident", "new"):
        return "router", None
    body = _classes(tokens).get(name)
    if body is not None:
        return "bound class", body
    return "none", None


def _entrypoints(tokens: list[Token]) -> list[tuple[str, tuple[str, ...]]]:
    """Each ``export class NAME extends WorkerEntrypoint`` and the methods its body defines, in order."""
    found = []
    for index, token in enumerate(tokens):
        if not (token.kind == "ident" and token.value == "export" and _is(tokens, index + 1, "ident", "class")
                and _is(tokens, index + 2, "ident") and _is(tokens, index + 3, "ident", "extends")
                and _is(tokens, index + 4, "ident", "WorkerEntrypoint")):
            continue
        body = _body_after(tokens, index + 5)
        if body is not None:
            methods = _defined(tokens, body, lambda name: name != "constructor", ("(", "<", "="))
            found.append((tokens[index + 2].value, tuple(methods)))
    return found


def _entrypoint_params(tokens: list[Token], entrypoints: list[tuple[str, tuple[str, ...]]]) -> dict[tuple[str, str], tuple[tuple[str, str], ...]]:
    """Each entrypoint method's parameters as its first definition in the module writes them:
    ``(name, first word of its type)`` (``""`` when untyped)."""
    params: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {}
    classes = _classes(tokens)
    for name, methods in entrypoints:
        body = classes.get(name)
        if body is None:
            continue
        closing = _matching(tokens, body, "{", "}")
        for method in methods:
            at = next((i for i in range(body + 1, closing) if _is(tokens, i, "ident", method) and _is(tokens, i + 1, "punct", "(")), None)
            if at is None:
                continue
            end = _matching(tokens, at + 1, "(", ")")
            found: list[tuple[str, str]] = []
            segment: list[Token] = []
            depth = 0
            for token in tokens[at + 2:end] + [Token(kind="punct", value=",", line=0)]:
                if token.kind == "punct" and token.value in "([{<":
                    depth += 1
                elif token.kind == "punct" and token.value in ")]}>":
                    depth -= 1
                if token.kind == "punct" and token.value == "," and depth == 0:
                    idents = [t for t in segment if t.kind == "ident"]
                    if idents:
                        colon = next((k for k, t in enumerate(segment) if t.kind == "punct" and t.value == ":"), None)
                        kind = next((t.value for t in segment[colon + 1:] if t.kind == "ident"), "") if colon is not None else ""
                        found.append((idents[0].value, kind))
                    segment = []
                    continue
                segment.append(token)
            params[(name, method)] = tuple(found)
    return params


def _handlers(tokens: list[Token], opening: int) -> list[str]:
    """The handler names defined at the top level of the braces opening at ``opening``."""
    found = set(_defined(tokens, opening, lambda name: name in HANDLER_NAMES, (":", ",", "}", "(", "<", "=")))
    return [name for name in HANDLER_NAMES if name in found]


def _defined(tokens: list[Token], opening: int, wanted: Callable[[str], bool], follows: tuple[str, ...]) -> list[str]:
    """The member names ``wanted`` defined at the top level of the braces opening at ``opening``
    (a name starting a member, followed by a token in ``follows``), in order, each once."""
    closing = _matching(tokens, opening, "{", "}")
    found: dict[str, None] = {}
    braces = parens = brackets = 0
    for index in range(opening + 1, closing):
        token = tokens[index]
        if token.kind == "punct":
            braces += {"{": 1, "}": -1}.get(token.value, 0)
            parens += {"(": 1, ")": -1}.get(token.value, 0)
            brackets += {"[": 1, "]": -1}.get(token.value, 0)
            continue
        if braces or parens or brackets or token.kind not in ("ident", "string") or not wanted(token.value):
            continue
        before = tokens[index - 1]
        after = tokens[index + 1] if index + 1 < len(tokens) else None
        member_start = before.kind == "punct" and before.value in "{,;}" or (
            before.kind == "ident" and before.value in ("async", "static", "public", "override")
        ) or (before.kind == "punct" and before.value == "*")
        if not member_start or after is None or after.kind != "punct":
            continue
        if after.value in follows:
            found[token.value] = None
    return list(found)


def _shown(path: Path, root: Path) -> str:
    """A module's path as the draft writes it: relative to ``root`` when inside it."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _where(path: Path, root: Path, line: int) -> str:
    return f"{_shown(path, root)}:{line}"


def _literal_url(tokens: list[Token], index: int, bound: dict[str, int]) -> tuple[str, bool] | None:
    """The URL text at ``index`` (a literal, a template's literal head, or a name bound to
    one), and whether it is a template head; None when it is built at run time."""
    for _ in range(2):  # a name is followed once to its value, never further
        token = tokens[index] if 0 <= index < len(tokens) else None
        if token is None:
            return None
        if token.kind == "string":
            return token.value, False
        if token.kind == "template":
            return token.value, token.open
        if token.kind == "ident" and token.value in bound:
            index = bound[token.value]
            continue
        return None
    return None


def _fetch_of(url: str, is_head: bool, method: str | None, where: str) -> Fetch | None:
    """The request a literal URL names, or None when its host is not literal."""
    if not re.match(r"^https?://", url, re.IGNORECASE):
        return None
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    guessed = is_head and not re.search(r"^https?://[^/?#]+[/?#]", url, re.IGNORECASE)
    if not _HOST.match(host):
        return None
    path = parts.path or "/"
    if is_head:
        path += "*"
    return Fetch(host=host, path=path, method=method, where=where, host_guessed=guessed)


def _init_method(tokens: list[Token], start: int, end: int) -> str | None:
    """The literal ``method`` of a fetch's init object between ``start`` and ``end``;
    GET when the call has no init, None when the init is not written out."""
    commas = [i for i in range(start, end) if _is(tokens, i, "punct", ",")]
    if not commas:
        return "GET"
    for index in range(commas[0], end):
        token = tokens[index]
        if token.kind in ("ident", "string") and token.value == "method" and _is(tokens, index + 1, "punct", ":"):
            value = tokens[index + 2] if index + 2 < end else None
            if value is not None and value.kind == "string" and value.value.upper() in _HTTP_METHODS:
                return value.value.upper()
            return None
    if _is(tokens, commas[0] + 1, "punct", "{"):
        return "GET"
    return None


def _init_body_keys(tokens: list[Token], start: int, end: int) -> tuple[tuple[str, str | None], ...]:
    """The keys of the object literal a fetch's init sends as ``body: JSON.stringify({...})``."""
    for index in range(start, end):
        if not (tokens[index].kind in ("ident", "string") and tokens[index].value == "body" and _is(tokens, index + 1, "punct", ":")):
            continue
        if not (_is(tokens, index + 2, "ident", "JSON") and _is(tokens, index + 4, "ident", "stringify") and _is(tokens, index + 6, "punct", "{")):
            return ()
        opening = index + 6
        closing = _matching(tokens, opening, "{", "}")
        keys: list[tuple[str, str | None]] = []
        for cursor in _members(tokens, opening, closing, "{[(}])", "{,"):
            token, after = tokens[cursor], tokens[cursor + 1]
            if after.kind == "punct" and after.value == ":":
                value = tokens[cursor + 2]
                ends = _is(tokens, cursor + 3, "punct", ",") or cursor + 3 == closing
                keys.append((token.value, value.value if value.kind == "ident" and ends else None))
            elif after.kind == "punct" and after.value in ",}":
                keys.append((token.value, token.value))  # shorthand { email }
        return tuple(keys)
    return ()


#: The methods of a Response whose call reads its body, by what the draft's default reply gives them.
_BODY_READS = {"json": "json", "text": "text"}


def _read_call(tokens: list[Token], dot: int) -> str | None:
    """``json`` or ``text`` when ``tokens[dot]`` is the ``.`` of a ``.json(``/``.json<T>(``/``.text(`` call."""
    if not _is(tokens, dot, "punct", ".") or not _is(tokens, dot + 1, "ident"):
        return None
    name = tokens[dot + 1].value
    if name in _BODY_READS and (_is(tokens, dot + 2, "punct", "(") or _is(tokens, dot + 2, "punct", "<")):
        return _BODY_READS[name]
    return None


def _reply_read(tokens: list[Token], index: int, closing: int) -> str | None:
    """How the reply of the fetch called at ``index`` (its ``)`` at ``closing``) is read: ``json``
    or ``text``, from ``(await fetch(...)).json()``, ``fetch(...).then((r) => r.json())`` or a
    name the reply is bound to (``const reply = await fetch(...)``, then ``reply.json()``)."""
    if _is(tokens, closing + 1, "punct", ")"):
        read = _read_call(tokens, closing + 2)
        if read is not None:
            return read
    if _is(tokens, closing + 1, "punct", ".") and _is(tokens, closing + 2, "ident", "then") and _is(tokens, closing + 3, "punct", "("):
        end = _matching(tokens, closing + 3, "(", ")")
        for cursor in range(closing + 3, end):
            read = _read_call(tokens, cursor)
            if read is not None:
                return read
        return None
    cursor = index - 1
    if _is(tokens, cursor, "ident", "await"):
        cursor -= 1
    if not (_is(tokens, cursor, "punct", "=") and _is(tokens, cursor - 1, "ident")) or _is(tokens, cursor - 2, "punct", "."):
        return None
    name = tokens[cursor - 1].value
    for after in range(closing + 1, len(tokens) - 1):
        if _is(tokens, after, "ident", name) and not _is(tokens, after - 1, "punct", "."):
            read = _read_call(tokens, after + 1)
            if read is not None:
                return read
    return None


def _requests(tokens: list[Token], path: Path, root: Path) -> tuple[list[Fetch], list[str]]:
    """The module's literal requests and the places of those built at run time."""
    bound = _bindings(tokens)
    fetches: list[Fetch] = []
    dynamic: list[str] = []
    for index, token in enumerate(tokens):
        if token.kind != "ident" or not _is(tokens, index + 1, "punct", "("):
            continue
        before = tokens[index - 1] if index else None
        if token.value == "fetch":
            if before is not None and before.kind == "punct" and before.value == ".":
                owner = tokens[index - 2] if index >= 2 else None
                if owner is None or owner.value not in ("globalThis", "self", "window"):
                    continue  # a binding's fetch (a service, a Durable Object stub): not outbound
            if before is not None and before.kind == "ident" and before.value in ("function", "async"):
                continue
        elif token.value == "Request":
            if before is None or not (before.kind == "ident" and before.value == "new"):
                continue
        else:
            continue
        closing = _matching(tokens, index + 1, "(", ")")
        member = before is None or (before.kind == "punct" and before.value in "{,;}")
        if _is(tokens, closing + 1, "punct", "{") or (member and _is(tokens, closing + 1, "punct", ":")):
            continue  # a method's definition (fetch(request) {...}), not a call
        where = _where(path, root, token.line)
        literal = _literal_url(tokens, index + 2, bound)
        request = None
        if literal is not None:
            request = _fetch_of(literal[0], literal[1], _init_method(tokens, index + 2, closing), where)
            if request is not None:
                request = attrs.evolve(
                    request, body_keys=_init_body_keys(tokens, index + 2, closing), reads=_reply_read(tokens, index, closing)
                )
        if request is None and _is(tokens, index + 2, "ident", "new") and _is(tokens, index + 3, "ident", "Request"):
            continue  # fetch(new Request(...)): the Request is read as a request of its own
        if request is None:
            dynamic.append(where)
        else:
            fetches.append(request)
    return fetches, dynamic


def _routes(tokens: list[Token], path: Path, root: Path) -> tuple[list[Route], list[str]]:
    """Paths compared to a request's path or registered with a router, and methods compared."""
    routes: list[Route] = []
    methods: list[str] = []
    comparisons = ("=", "!")
    for index, token in enumerate(tokens):
        if token.kind not in ("string", "template") or token.open or not token.value.startswith("/"):
            continue
        where = _where(path, root, token.line)
        before = tokens[index - 1] if index else None
        # `pathname === "/x"`: the three tokens before are = = = or ! = =.
        near = [tokens[i] for i in range(max(0, index - 4), index)]
        compared = bool(near) and all(t.kind == "punct" and t.value in comparisons for t in near[-2:]) and any(
            t.kind == "ident" and t.value in ("pathname", "path") for t in near
        )
        after = tokens[index + 1 : index + 7]
        compared = compared or (
            len(after) >= 3
            and all(t.kind == "punct" and t.value in comparisons for t in after[:2])
            and any(t.kind == "ident" and t.value in ("pathname", "path") for t in after)
        )
        if compared or (before is not None and before.kind == "ident" and before.value == "case"):
            routes.append(Route(path=token.value, method=None, where=where))
            continue
        # A router's registration: .post("/orders", ...)
        if before is not None and before.kind == "punct" and before.value == "(" and index >= 3:
            name = tokens[index - 2]
            dot = tokens[index - 3]
            if name.kind == "ident" and name.value.lower() in _ROUTER_METHODS and dot.kind == "punct" and dot.value == ".":
                owner = tokens[index - 4].value if _is(tokens, index - 4, "ident") and not _is(tokens, index - 5, "punct", ".") else None
                routes.append(Route(path=token.value, method=_ROUTER_METHODS[name.value.lower()], where=where, owner=owner))
    for index, token in enumerate(tokens):
        if token.kind == "ident" and token.value == "method" and _is(tokens, index - 1, "punct", "."):
            for offset in range(1, 5):
                value = tokens[index + offset] if index + offset < len(tokens) else None
                if value is not None and value.kind == "string" and value.value.upper() in _HTTP_METHODS:
                    methods.append(value.value.upper())
                    break
                if value is None or value.kind != "punct" or value.value not in comparisons:
                    break
    return routes, methods


#: A body field's example value by its declared type's first word.
_EXAMPLE_VALUES = {"string": "", "number": 0, "bigint": 0, "boolean": False}


#: The names an incoming request is read through: ``request.json()``, ``req.json()``, Hono's ``c.req.json()``.
_REQUEST_NAMES = ("request", "req")


def _body_types(tokens: list[Token]) -> list[tuple[str, str | int]]:
    """The types the code reads a body as, each ``(source, type)``: the source ``request``
    (``request.json<T>()``, ``(await request.json()) as T``) or ``message`` (``MessageBatch<T>``,
    ``Message<T>``, ``JSON.parse(message) as T``), the type a name or the index of an inline type's ``{``."""
    found: list[tuple[str, str | int]] = []

    def typed(source: str, at: int) -> None:
        if _is(tokens, at, "punct", "{"):
            found.append((source, at))
        elif _is(tokens, at, "ident") and (_is(tokens, at + 1, "punct", ">") or not _is(tokens, at + 1, "punct", "<")):
            found.append((source, tokens[at].value))

    for index, token in enumerate(tokens):
        if token.kind != "ident":
            continue
        is_json = (token.value == "json" and _is(tokens, index - 1, "punct", ".") and _is(tokens, index - 2, "ident")
                   and tokens[index - 2].value in _REQUEST_NAMES)
        is_message = token.value in ("MessageBatch", "Message")
        if (is_json or is_message) and _is(tokens, index + 1, "punct", "<"):
            typed("request" if is_json else "message", index + 2)
        elif (is_json or _parses_message(tokens, index)) and _is(tokens, index + 1, "punct", "("):
            cursor = _matching(tokens, index + 1, "(", ")") + 1
            for _ in range(2):  # ``(await request.json()) as T``: a closing parenthesis or two
                if _is(tokens, cursor, "punct", ")"):
                    cursor += 1
            if _is(tokens, cursor, "ident", "as"):
                typed("request" if is_json else "message", cursor + 1)
    return list(dict.fromkeys(found))


def _parses_message(tokens: list[Token], index: int) -> bool:
    """Whether ``tokens[index]`` is the ``parse`` of ``JSON.parse(...)`` over a WebSocket message
    (an argument naming ``message``), whose ``as T`` is the type a message's data is read as."""
    if not (tokens[index].value == "parse" and _is(tokens, index - 1, "punct", ".") and _is(tokens, index - 2, "ident", "JSON")):
        return False
    if not _is(tokens, index + 1, "punct", "("):
        return False
    closing = _matching(tokens, index + 1, "(", ")")
    return any(_is(tokens, cursor, "ident", "message") for cursor in range(index + 2, closing))


#: The Agents SDK's handlers of an Agent class, in the order the draft reports them.
AGENT_HANDLERS = ("onRequest", "onMessage", "onConnect")


def _agent_handlers(tokens: list[Token]) -> set[str]:
    """The Agents SDK handlers defined as members (``async onMessage(connection, message) {``)."""
    return {
        token.value
        for index, token in enumerate(tokens)
        if token.kind == "ident" and token.value in AGENT_HANDLERS and _is(tokens, index + 1, "punct", "(")
        and (_is(tokens, index - 1, "ident", "async") or _is(tokens, index - 1, "punct", "{") or _is(tokens, index - 1, "punct", "}")
             or _is(tokens, index - 1, "punct", ";"))
        and any(_is(tokens, _matching(tokens, index + 1, "(", ")") + 1, "punct", mark) for mark in "{:")
    }


def _type_fields(tokens: list[Token], name: str) -> list[tuple[str, str]] | None:
    """The fields of ``interface NAME {...}`` or ``type NAME = {...}``: (field, first word of its type)."""
    for index, token in enumerate(tokens):
        if token.kind != "ident" or token.value not in ("interface", "type") or not _is(tokens, index + 1, "ident", name):
            continue
        opening = index + 2
        if _is(tokens, opening, "punct", "="):
            opening += 1
        if not _is(tokens, opening, "punct", "{"):
            continue
        return _fields_at(tokens, opening)
    return None


def _fields_at(tokens: list[Token], opening: int) -> list[tuple[str, str]]:
    """The fields of the object type whose ``{`` is at ``opening``: (field, first word of its type)."""
    closing = _matching(tokens, opening, "{", "}")
    fields: list[tuple[str, str]] = []
    for cursor in _members(tokens, opening, closing, "{[(<}])>", "{;,"):
        colon = cursor + 2 if _is(tokens, cursor + 1, "punct", "?") else cursor + 1
        if _is(tokens, colon, "punct", ":") and colon + 1 < closing:
            fields.append((tokens[cursor].value, tokens[colon + 1].value))
    return fields


def body_example(fields: tuple[tuple[str, str], ...]) -> dict[str, object]:
    """An example body from declared fields: "" for a string, 0 for a number, false, else null."""
    return {name: _EXAMPLE_VALUES.get(kind) for name, kind in fields}


@attrs.frozen
class _Mounts:
    """What one module says about its routers' prefixes."""

    #: A router's own prefix: ``Router({ base: "/api" })``, ``new Hono().basePath("/api")``,
    #: chanfana's ``fromHono(app, { base: "/api" })``: name -> (prefix, file:line).
    bases: dict[str, tuple[str, str]]
    #: ``parent.route("/tasks", child)``: (parent, prefix, child, file:line).
    mounts: list[tuple[str, str, str, str]]
    #: Names imported by relative path: name -> (the module, the name exported there or "default").
    imports: dict[str, tuple[Path, str]]
    #: The name the module default-exports (``export default app``), if a name.
    default: str | None


def _mounts(tokens: list[Token], path: Path, root: Path) -> _Mounts:
    """The router prefixes, ``route()`` mounts and relative imports of one module."""
    bound = _bindings(tokens)
    bases: dict[str, tuple[str, str]] = {}
    for name, value in bound.items():
        end = next((cursor for cursor in range(value, min(len(tokens), value + 60)) if _is(tokens, cursor, "punct", ";")), min(len(tokens), value + 60))
        for cursor in range(value, end):
            base = None
            if _is(tokens, cursor, "ident", "basePath") and _is(tokens, cursor + 1, "punct", "(") and _is(tokens, cursor + 2, "string"):
                base = tokens[cursor + 2].value
            elif (tokens[cursor].kind in ("ident", "string") and tokens[cursor].value == "base" and _is(tokens, cursor + 1, "punct", ":")
                  and _is(tokens, cursor + 2, "string")):
                base = tokens[cursor + 2].value
            if base is not None and base.startswith("/"):
                bases[name] = (base, _where(path, root, tokens[cursor].line))
                break
    mounts: list[tuple[str, str, str, str]] = []
    for index, token in enumerate(tokens):
        if (token.kind == "ident" and token.value == "route" and _is(tokens, index - 1, "punct", ".") and _is(tokens, index - 2, "ident")
                and _is(tokens, index + 1, "punct", "(") and _is(tokens, index + 2, "string") and _is(tokens, index + 3, "punct", ",")
                and _is(tokens, index + 4, "ident") and tokens[index + 2].value.startswith("/")):
            mounts.append((tokens[index - 2].value, tokens[index + 2].value, tokens[index + 4].value, _where(path, root, token.line)))
    imports: dict[str, tuple[Path, str]] = {}
    for index, token in enumerate(tokens):
        if not (token.kind == "ident" and token.value == "import"):
            continue
        cursor = index + 1
        names: list[tuple[str, str]] = []
        if _is(tokens, cursor, "ident") and tokens[cursor].value not in ("type", "from"):
            names.append((tokens[cursor].value, "default"))
            cursor += 1
            if _is(tokens, cursor, "punct", ","):
                cursor += 1
        if _is(tokens, cursor, "punct", "{"):
            closing = _matching(tokens, cursor, "{", "}")
            for member in range(cursor + 1, closing):
                if _is(tokens, member, "ident") and (_is(tokens, member - 1, "punct", "{") or _is(tokens, member - 1, "punct", ",")):
                    local = tokens[member + 2].value if _is(tokens, member + 1, "ident", "as") and _is(tokens, member + 2, "ident") else tokens[member].value
                    names.append((local, tokens[member].value))
            cursor = closing + 1
        if _is(tokens, cursor, "ident", "from") and _is(tokens, cursor + 1, "string") and tokens[cursor + 1].value.startswith(("./", "../")):
            module = _resolve(path, tokens[cursor + 1].value)
            if module is not None:
                for local, exported in names:
                    imports[local] = (module, exported)
    default = None
    for index, token in enumerate(tokens):
        if token.kind == "ident" and token.value == "export" and _is(tokens, index + 1, "ident", "default") and _is(tokens, index + 2, "ident"):
            if _is(tokens, index + 3, "punct", ";") or index + 3 >= len(tokens) or tokens[index + 3].line != token.line:
                default = tokens[index + 2].value
    return _Mounts(bases=bases, mounts=mounts, imports=imports, default=default)


#: How many ``route()`` mounts deep a router's prefix is followed.
_MOUNT_DEPTH = 8


def _mounted(routes: list[tuple[Path, Route]], mounts: dict[Path, _Mounts]) -> list[Route]:
    """Each route with the prefixes of the routers it is mounted under: its own router's base,
    then each ``route("/prefix", router)`` that mounts it (in its module, or in one that imports
    it), up to _MOUNT_DEPTH deep."""

    def prefix(module: Path, owner: str, depth: int) -> tuple[str, str | None]:
        own = mounts[module].bases.get(owner)
        text, where = (own[0], own[1]) if own is not None else ("", None)
        if depth >= _MOUNT_DEPTH:
            return text, where
        for parent_module, info in mounts.items():
            for parent, mount, child, mounted_at in info.mounts:
                same = parent_module == module and child == owner
                imported = info.imports.get(child)
                reached = imported is not None and imported[0] == module and (
                    imported[1] == owner or imported[1] == "default" and mounts[module].default == owner
                )
                if same or reached:
                    outer, _ = prefix(parent_module, parent, depth + 1)
                    return _join(outer, _join(mount, text)), mounted_at
        return text, where

    result: list[Route] = []
    for module, route in routes:
        if route.owner is None or module not in mounts:
            result.append(route)
            continue
        text, where = prefix(module, route.owner, 0)
        result.append(attrs.evolve(route, path=_join(text, route.path), mounted_by=where) if text else route)
    return result


def _join(prefix: str, path: str) -> str:
    """A mount's prefix and a path under it: ``/api`` + ``/tasks`` is ``/api/tasks``, + ``/`` is ``/api``."""
    if not prefix:
        return path
    if path in ("", "/"):
        return prefix.rstrip("/") or "/"
    return prefix.rstrip("/") + "/" + path.lstrip("/")


def _relative_imports(tokens: list[Token]) -> list[str]:
    """The specifiers the module imports or re-exports by relative path, in order."""
    specifiers: list[str] = []
    for index, token in enumerate(tokens):
        if token.kind != "string" or not token.value.startswith(("./", "../")):
            continue
        before = tokens[index - 1] if index else None
        if before is None:
            continue
        if before.kind == "ident" and before.value in ("from", "import"):
            specifiers.append(token.value)
        elif before.kind == "punct" and before.value == "(" and index >= 2 and tokens[index - 2].value in ("import", "require"):
            specifiers.append(token.value)
    return specifiers


def _resolve(importer: Path, specifier: str) -> Path | None:
    """The script file a relative specifier names, as TypeScript and bundlers resolve it."""
    target = (importer.parent / specifier).resolve()
    candidates = [target]
    if target.suffix in _TS_TWINS:
        candidates += [target.with_suffix(ext) for ext in _TS_TWINS[target.suffix]]
    candidates += [Path(str(target) + ext) for ext in _SCRIPT_EXTENSIONS]
    candidates += [target / f"index{ext}" for ext in _SCRIPT_EXTENSIONS]
    for candidate in candidates:
        if candidate.is_file() and candidate.suffix in _SCRIPT_EXTENSIONS:
            return candidate
    return None


def _body_shape(found: list[tuple[int, str | int]], modules: list[list[Token]]) -> tuple[str | None, tuple[tuple[str, str], ...]]:
    """The first body type read whose fields are known, and its fields: an inline type's (named
    ``an inline type``), or a named type's whose declaration a scanned module holds."""
    for module, item in found:  # (the index of the module read in, the type)
        if isinstance(item, int):
            fields = _fields_at(modules[module], item)
            if fields:
                return "an inline type", tuple(fields)
            continue
        for tokens in modules:
            named = _type_fields(tokens, item)
            if named:
                return item, tuple(named)
    return None, ()


#: A request's methods that read its body.
_REQUEST_BODY_READS = frozenset({"json", "text", "formData", "arrayBuffer", "blob"})


def _reads_body(tokens: list[Token]) -> bool:
    """Whether the module reads a request's body: ``request.json()``, ``req.text()``, ``c.req.json()``."""
    return any(
        token.kind == "ident" and token.value in ("request", "req") and _is(tokens, index + 1, "punct", ".")
        and _is(tokens, index + 2, "ident") and tokens[index + 2].value in _REQUEST_BODY_READS
        and (_is(tokens, index + 3, "punct", "(") or _is(tokens, index + 3, "punct", "<"))
        for index, token in enumerate(tokens)
    )


#: How far after a header's read the ``if`` testing it is looked for, and how far after that
#: condition the 400 it answers, in tokens.
_HEADER_TEST_REACH = 200
_HEADER_ANSWER_REACH = 30


def _required_headers(tokens: list[Token], path: Path, root: Path) -> list[tuple[str, str]]:
    """Headers read by a literal name (``request.headers.get("Idempotency-Key")``, Hono's
    ``c.req.header("X-Key")``) that an ``if`` tests and answers with a 400: ``const key =
    request.headers.get("K"); if (key === null) return new Response("...", { status: 400 })``,
    or the read inside the condition itself."""
    found: list[tuple[str, str]] = []
    for index, token in enumerate(tokens):
        getter = token.kind == "ident" and (
            token.value == "get" and _is(tokens, index - 2, "ident", "headers") or token.value == "header" and _is(tokens, index - 2, "ident", "req")
        )
        if not (getter and _is(tokens, index - 1, "punct", ".") and _is(tokens, index + 1, "punct", "(") and _is(tokens, index + 2, "string")):
            continue
        start = index
        while start >= 2 and _is(tokens, start - 1, "punct", ".") and _is(tokens, start - 2, "ident"):
            start -= 2
        names = {tokens[start - 2].value} if _is(tokens, start - 1, "punct", "=") and _is(tokens, start - 2, "ident") else set()
        conditions = []
        for cursor in range(max(0, start - 12), min(len(tokens), index + _HEADER_TEST_REACH)):
            if _is(tokens, cursor, "ident", "if") and _is(tokens, cursor + 1, "punct", "("):
                closing = _matching(tokens, cursor + 1, "(", ")")
                inside = cursor + 1 < index < closing
                if inside or any(_is(tokens, test, "ident") and tokens[test].value in names for test in range(cursor + 2, closing)):
                    conditions.append(closing)
        answered = any(
            item.kind == "number" and item.value == "400"
            for closing in conditions
            for item in tokens[closing + 1 : closing + 1 + _HEADER_ANSWER_REACH]
        )
        if answered:
            found.append((tokens[index + 2].value, _where(path, root, token.line)))
    return found


def _argument_name(tokens: list[Token], start: int, end: int) -> str | None:
    """The last name of an argument ``tokens[start:end]`` that is a name or a member chain
    (``message.body.orderId`` -> ``orderId``), else None."""
    if start >= end or not all(t.kind == "ident" or (t.kind == "punct" and t.value in ".?!") for t in tokens[start:end]):
        return None
    last = tokens[end - 1]
    return last.value if last.kind == "ident" else None


def _object_names(tokens: list[Token], path: Path, root: Path) -> list[tuple[str, str | None, str | None, str]]:
    """``env.B.getByName(x)`` and ``env.B.idFromName(x)``: the binding and the name the object is addressed by."""
    found: list[tuple[str, str | None, str | None, str]] = []
    for index, token in enumerate(tokens):
        if not (token.kind == "ident" and token.value in ("getByName", "idFromName") and _is(tokens, index - 1, "punct", ".")
                and _is(tokens, index - 2, "ident") and _is(tokens, index + 1, "punct", "(")):
            continue
        closing = _matching(tokens, index + 1, "(", ")")
        literal = tokens[index + 2].value if closing == index + 3 and _is(tokens, index + 2, "string") else None
        found.append((tokens[index - 2].value, _argument_name(tokens, index + 2, closing), literal, _where(path, root, token.line)))
    return found


def _env_calls(tokens: list[Token]) -> list[int]:
    """Where the code calls a method of a binding (``env.B.m(...)``, ``this.env.B.m(...)``): the method's token, each."""
    return [
        index for index, token in enumerate(tokens)
        if token.kind == "ident" and _is(tokens, index - 1, "punct", ".") and _is(tokens, index - 2, "ident")
        and _is(tokens, index - 3, "punct", ".") and _is(tokens, index - 4, "ident", "env") and _is(tokens, index + 1, "punct", "(")
    ]


def _binding_calls(tokens: list[Token], path: Path, root: Path) -> list[tuple[str, str, str]]:
    """``env.B.m(...)``: the binding, the method and where."""
    return [(tokens[index - 2].value, tokens[index].value, _where(path, root, tokens[index].line)) for index in _env_calls(tokens)]


def _binding_puts(tokens: list[Token], path: Path, root: Path) -> list[tuple[str, str | None, str]]:
    """``env.B.put(key, ...)`` and ``this.env.B.put(...)``: the binding and the key argument's last name."""
    found: list[tuple[str, str | None, str]] = []
    for index in _env_calls(tokens):
        token = tokens[index]
        if token.value != "put":
            continue
        closing = _matching(tokens, index + 1, "(", ")")
        end = next((cursor for cursor in range(index + 2, closing) if _is(tokens, cursor, "punct", ",")), closing)
        found.append((tokens[index - 2].value, _argument_name(tokens, index + 2, end), _where(path, root, token.line)))
    return found


def _object_sql(tokens: list[Token]) -> list[str]:
    """The literal SQL of ``<...>.sql.exec("...")`` and of an Agent's ``this.sql`...``` (its literal pieces)."""
    found: list[str] = []
    for index, token in enumerate(tokens):
        if token.kind != "ident" or not _is(tokens, index - 1, "punct", "."):
            continue
        if token.value == "exec" and _is(tokens, index - 2, "ident", "sql") and _is(tokens, index + 1, "punct", "(") and _is(tokens, index + 2, "string"):
            found.append(tokens[index + 2].value)
        elif token.value == "sql" and _is(tokens, index - 2, "ident", "this") and _is(tokens, index + 1, "template"):
            pieces: list[str] = []
            cursor = index + 1
            while cursor < len(tokens) and tokens[cursor].kind == "template":
                pieces.append(tokens[cursor].value)
                if not tokens[cursor].open:
                    break
                # Skip the substitution to the template's next literal piece.
                cursor += 1
                while cursor < len(tokens) and tokens[cursor].kind != "template":
                    cursor += 1
            found.append("?".join(pieces))
    return found


def _d1_statements(tokens: list[Token], path: Path, root: Path) -> list[D1Statement]:
    """The statements prepared on a binding (``env.DB.prepare(SQL)``), with their ``.bind(...)`` arguments."""
    bound = _bindings(tokens)
    statements: list[D1Statement] = []
    for index, token in enumerate(tokens):
        if not (token.kind == "ident" and token.value == "prepare" and _is(tokens, index - 1, "punct", ".")
                and _is(tokens, index - 2, "ident") and _is(tokens, index + 1, "punct", "(")):
            continue
        closing = _matching(tokens, index + 1, "(", ")")
        literal = _literal_url(tokens, index + 2, bound)
        sql = None if literal is None or literal[1] else literal[0]
        args: list[str | None] = []
        if _is(tokens, closing + 1, "punct", ".") and _is(tokens, closing + 2, "ident", "bind") and _is(tokens, closing + 3, "punct", "("):
            end = _matching(tokens, closing + 3, "(", ")")
            start = closing + 4
            depth = 0
            for cursor in range(closing + 4, end + 1):
                item = tokens[cursor]
                if item.kind == "punct" and item.value in "([{" and cursor < end:
                    depth += 1
                elif item.kind == "punct" and item.value in ")]}" and cursor < end:
                    depth -= 1
                elif cursor == end or (depth == 0 and item.kind == "punct" and item.value == ","):
                    if cursor > start:
                        args.append(_argument_name(tokens, start, cursor))
                    start = cursor + 1
        statements.append(D1Statement(binding=tokens[index - 2].value, sql=sql, args=tuple(args), where=_where(path, root, token.line)))
    return statements


def scan_worker(entry: Path, root: Path) -> SourceScan:
    """Scan the Worker's entry module and the modules it imports by relative path.

    ``root`` is the directory places are shown relative to (the draft's folder). Nothing
    is imported or run; an unreadable module is named in ``skipped``.
    """
    entry = entry.resolve()
    pending = [entry]
    seen = {entry}
    modules: list[str] = []
    skipped: list[str] = []
    fetches: list[Fetch] = []
    dynamic: list[str] = []
    routes: list[tuple[Path, Route]] = []
    mounts: dict[Path, _Mounts] = {}
    methods: list[str] = []
    headers: set[str] = set()
    handlers: list[str] = []
    entrypoints: list[tuple[str, tuple[str, ...]]] = []
    entrypoint_params: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {}
    shape = "none"
    agents = False
    body_types: list[tuple[int, str | int]] = []
    message_types: list[tuple[int, str | int]] = []
    env_names: set[str] = set()
    reads_body = False
    required: list[tuple[str, str]] = []
    statements: list[D1Statement] = []
    objects: list[tuple[str, str | None, str | None, str]] = []
    object_sql: list[str] = []
    puts: list[tuple[str, str | None, str]] = []
    calls: list[tuple[str, str, str]] = []
    agent_handlers: set[str] = set()
    module_tokens: list[list[Token]] = []
    while pending:
        path = pending.pop(0)
        shown = _shown(path, root)
        if len(modules) >= MODULES_MAX:
            skipped.append(f"{shown} (over the {MODULES_MAX}-module limit)")
            continue
        try:
            size = path.stat().st_size
            if size > MODULE_BYTES_MAX:
                skipped.append(f"{shown} ({size} bytes, over {MODULE_BYTES_MAX})")
                continue
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            skipped.append(f"{shown} (cannot be read: {error})")
            continue
        modules.append(shown)
        tokens = tokenize(text)
        module_tokens.append(tokens)
        for source, item in _body_types(tokens):
            (body_types if source == "request" else message_types).append((len(module_tokens) - 1, item))
        reads_body = reads_body or _reads_body(tokens)
        required += _required_headers(tokens, path, root)
        statements += _d1_statements(tokens, path, root)
        objects += _object_names(tokens, path, root)
        agent_handlers |= _agent_handlers(tokens)
        object_sql += _object_sql(tokens)
        puts += _binding_puts(tokens, path, root)
        calls += _binding_calls(tokens, path, root)
        env_names.update(
            tokens[i + 2].value
            for i, t in enumerate(tokens)
            if t.kind == "ident" and t.value == "env" and _is(tokens, i + 1, "punct", ".") and _is(tokens, i + 2, "ident")
            # Vite's import.meta.env.MODE is the build's, never the Worker's env (nor a secret).
            and not (_is(tokens, i - 1, "punct", ".") and _is(tokens, i - 2, "ident", "meta"))
        )
        if path == entry:
            shape, opening = _default_export(tokens)
            if opening is not None:
                handlers = _handlers(tokens, opening)
            elif shape == "router":
                handlers = ["fetch"]
            entrypoints = _entrypoints(tokens)
            entrypoint_params = _entrypoint_params(tokens, entrypoints)
        module_fetches, module_dynamic = _requests(tokens, path, root)
        fetches += module_fetches
        dynamic += module_dynamic
        module_routes, module_methods = _routes(tokens, path, root)
        routes += [(path, route) for route in module_routes]
        mounts[path] = _mounts(tokens, path, root)
        methods += module_methods
        agents = agents or any(t.kind == "ident" and t.value == "routeAgentRequest" for t in tokens)
        headers.update(t.value for t in tokens if t.kind == "string" and t.value.lower() in ("idempotency-key", "x-idempotency-key"))
        for specifier in _relative_imports(tokens):
            resolved = _resolve(path, specifier)
            if resolved is None:
                if not Path(specifier).suffix or Path(specifier).suffix in _SCRIPT_EXTENSIONS:
                    skipped.append(f"{specifier} (imported by {shown}; no such module)")
                continue
            if resolved not in seen:
                seen.add(resolved)
                pending.append(resolved)
    request_type, request_fields = _body_shape(body_types, module_tokens)
    message_type, message_fields = _body_shape(message_types, module_tokens)
    body_type, body_fields = (request_type, request_fields) if request_fields else (message_type, message_fields)
    return SourceScan(
        entry=entry,
        body_fields=body_fields,
        body_type=body_type,
        message_fields=message_fields,
        message_type=message_type,
        env_names=tuple(sorted(env_names)),
        reads_body=reads_body,
        required_headers=tuple(dict.fromkeys(required)),
        d1_statements=tuple(statements),
        object_names=tuple(objects),
        object_sql=tuple(object_sql),
        binding_puts=tuple(puts),
        binding_calls=tuple(calls),
        agent_handlers=tuple(name for name in AGENT_HANDLERS if name in agent_handlers),
        handlers=tuple(handlers),
        entrypoints=tuple(entrypoints),
        entrypoint_params=entrypoint_params,
        export_shape=shape,
        fetches=tuple(fetches),
        dynamic_fetches=tuple(dynamic),
        routes=tuple(_mounted(routes, mounts)),
        methods=tuple(dict.fromkeys(methods)),
        routes_agents=agents,
        idempotency_headers=tuple(sorted(headers)),
        modules=tuple(modules),
        skipped=tuple(skipped),
    )
