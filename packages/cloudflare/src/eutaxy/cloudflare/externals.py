"""Externals: the outside services a Worker fetches, declared with what they guarantee.

Outbound fetch never reaches the network. Each host the Worker talks to is
declared with :func:`external`: its name (the effect target ``Fetch:<name>``),
its host (exact, or a ``*.suffix`` pattern for its subdomains), its routes (none
scripted: every request gets 200 and an empty body) and what it guarantees under
retries (``dedupe_by``: a request repeating an earlier one's header value gets
the earlier reply and did nothing). A request to an undeclared host, or one no
route answers, makes the run UNSUPPORTED. A verdict is only as good as these
declarations, so :func:`assumptions` states each one among the verdict's
assumptions.

A route matches a request by its method, its URL path and, when it says so, its
query; the first route declared that matches answers (the runtime's
``fetch.mjs`` owns the matching; this module only checks and normalises the
declaration). The path is exact (``"/v1/items"``), a prefix (``"/v1/items*"``,
any path that starts with ``/v1/items``), or, under ``pattern`` instead of
``path``, a regular expression the whole path must match (JavaScript's dialect).
``query`` names parameters the request's query string must carry with those
values (others may be present). A route answers with one reply (``status``,
``headers``, ``body``) or a sequence (``replies``): the n-th request the route
answers in a run gets the n-th reply, the last one repeating, so "429 with
Retry-After, then 200", "fail, then succeed" or a page per request are scripts.
Each run starts every route at its first reply again.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Mapping, Sequence

from eutaxy.core.errors import UserError

__all__ = ["assumptions", "external", "route_text", "scripted_routes", "validate_externals"]

_HOST = re.compile(r"^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_HEADER = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_ROUTE_FIELDS = frozenset({"method", "path", "pattern", "query", "status", "headers", "body", "replies"})
_REPLY_FIELDS = frozenset({"status", "headers", "body"})
#: Python-only regular-expression syntax that JavaScript reads otherwise or refuses.
_PYTHON_ONLY = ("(?P", "(?#", "\\A", "\\Z", "(?i", "(?m", "(?s", "(?x", "(?a", "(?u", "(?L")
#: Replies one route may script: enough for any retry ladder or page run a scenario writes by hand.
REPLIES_MAX = 100


def external(
    name: str,
    host: str,
    responses: Sequence[Mapping[str, Any]] | None = None,
    dedupe_by: str | None = None,
) -> dict[str, Any]:
    """Declare an external service the Worker may fetch.

    Args:
        name: the external's name; its requests are effects at ``Fetch:<name>``.
        host: ``"api.pay.example"``, or ``"*.pay.example"`` for every subdomain of it.
        responses: the routes, each ``{"method", "path" | "pattern", "query"={}}`` with one
            reply (``"status"=200, "headers"={}, "body"=None``) or a sequence of them
            (``"replies": [{"status": 429, "headers": {"Retry-After": "1"}}, {"status": 200}]``,
            the last one repeating). ``path`` is exact, or a prefix when it ends in ``*``;
            ``pattern`` is a regular expression the whole path must match; ``query`` maps
            parameters to the values the request must carry. The first route that matches
            answers. A string body is sent as text, any other JSON value as JSON.
        dedupe_by: a request header (``"Idempotency-Key"``) whose repeated value gets the
            earlier reply and is recorded as not effective.
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise UserError(f"external: name must be letters, digits, '.', '_' or '-', got {name!r}")
    label = f"external({name!r})"
    if not isinstance(host, str) or not _HOST.match(host.lower()):
        raise UserError(f"{label}: host must be a host name such as 'api.pay.example' or a pattern '*.pay.example', got {host!r}")
    if dedupe_by is not None and (not isinstance(dedupe_by, str) or not _HEADER.match(dedupe_by)):
        raise UserError(f"{label}: dedupe_by must be a header name such as 'Idempotency-Key', got {dedupe_by!r}")
    return {
        "name": name,
        "host": host.lower(),
        "responses": scripted_routes(responses, f"{label}: responses"),
        "dedupeBy": dedupe_by,
    }


def scripted_routes(responses: Any, label: str) -> list[dict[str, Any]]:
    """Scripted routes, each normalised (its single reply's defaults filled in): an external's
    ``responses``, and the replies a scripted service binding gives fetch() (``label`` names the
    list in messages). None is no routes."""
    if responses is None:
        return []
    if isinstance(responses, (str, bytes, Mapping)) or not isinstance(responses, Sequence):
        raise UserError(f"{label} must be a list of routes {{'method', 'path', 'status', 'body'}}, got {responses!r}")
    return [_route(response, f"{label}[{index}]") for index, response in enumerate(responses)]


def _route(response: Any, label: str) -> dict[str, Any]:
    """One route, normalised: the fields it was given, with a single reply's defaults filled in."""
    if not isinstance(response, Mapping):
        raise UserError(f"{label} must be a dict with a method and a path, got {response!r}")
    unknown = set(response) - _ROUTE_FIELDS
    if unknown:
        raise UserError(
            f"{label} has unknown fields {', '.join(sorted(unknown))}; a route takes {', '.join(sorted(_ROUTE_FIELDS))}"
        )
    method = response.get("method")
    if not isinstance(method, str) or not method.isalpha():
        raise UserError(f"{label}: method must be an HTTP method such as 'POST', got {method!r}")
    route: dict[str, Any] = {"method": method.upper()}
    route.update(_where(response, label))
    if "query" in response:
        route["query"] = _query(response["query"], label)
    if "replies" in response:
        given = sorted(_REPLY_FIELDS & set(response))
        if given:
            raise UserError(
                f"{label}: give either replies or a single reply's {', '.join(sorted(_REPLY_FIELDS))}, "
                f"not both (got replies and {', '.join(given)})"
            )
        replies = response["replies"]
        if isinstance(replies, (str, bytes, Mapping)) or not isinstance(replies, Sequence) or not replies:
            raise UserError(f"{label}: replies must be a non-empty list of {{'status', 'headers', 'body'}}, got {replies!r}")
        if len(replies) > REPLIES_MAX:
            raise UserError(f"{label}: replies must hold at most {REPLIES_MAX} replies, got {len(replies)}")
        route["replies"] = [_reply(reply, f"{label}.replies[{index}]") for index, reply in enumerate(replies)]
    else:
        route.update(_reply({k: v for k, v in response.items() if k in _REPLY_FIELDS}, label))
    return route


def _where(response: Mapping[str, Any], label: str) -> dict[str, str]:
    """The route's path (exact, or a prefix ending in ``*``) or its pattern: exactly one of them."""
    if ("path" in response) == ("pattern" in response):
        raise UserError(f"{label}: give a path ('/v1/items', or '/v1/items*' for a prefix) or a pattern, exactly one")
    if "path" in response:
        path = response["path"]
        if not isinstance(path, str) or not path.startswith("/") or "?" in path or "#" in path:
            raise UserError(f"{label}: path must be a URL path starting with '/' (no query; put it in query), got {path!r}")
        if "*" in path[:-1]:
            raise UserError(
                f"{label}: path may hold '*' only at its end (a prefix, '/v1/items*'); for more use a pattern, got {path!r}"
            )
        return {"path": path}
    pattern = response["pattern"]
    if not isinstance(pattern, str) or not pattern:
        raise UserError(f"{label}: pattern must be a regular expression for the whole path, such as '/v1/items/[0-9]+', got {pattern!r}")
    for construct in _PYTHON_ONLY:
        if construct in pattern:
            raise UserError(f"{label}: pattern is read as a JavaScript regular expression, which has no {construct!r}; got {pattern!r}")
    try:
        re.compile(pattern)
    except re.error as error:
        raise UserError(f"{label}: pattern must be a regular expression, got {pattern!r} ({error})") from None
    return {"pattern": pattern}


def _query(query: Any, label: str) -> dict[str, str]:
    if not isinstance(query, Mapping) or not all(isinstance(k, str) and k and isinstance(v, str) for k, v in query.items()):
        raise UserError(f"{label}: query must be a dict of parameter names to string values such as {{'cursor': 'c2'}}, got {query!r}")
    return dict(query)


def _reply(reply: Any, label: str) -> dict[str, Any]:
    if not isinstance(reply, Mapping):
        raise UserError(f"{label} must be a dict {{'status', 'headers', 'body'}}, got {reply!r}")
    unknown = set(reply) - _REPLY_FIELDS
    if unknown:
        raise UserError(f"{label} has unknown fields {', '.join(sorted(unknown))}; a reply takes status, headers, body")
    status = reply.get("status", 200)
    if isinstance(status, bool) or not isinstance(status, int) or not 200 <= status <= 599:
        raise UserError(f"{label}: status must be an HTTP status from 200 to 599, got {status!r}")
    headers = reply.get("headers", {})
    if not isinstance(headers, Mapping) or not all(isinstance(k, str) and _HEADER.match(k) and isinstance(v, str) for k, v in headers.items()):
        raise UserError(f"{label}: headers must be a dict of header names to strings, got {headers!r}")
    body = reply.get("body")
    try:
        same = json.loads(json.dumps(body, allow_nan=False)) == body
    except (TypeError, ValueError):
        same = False
    if not same:
        raise UserError(f"{label}: body must be JSON data or a string, got {body!r}")
    return {"status": status, "headers": dict(headers), "body": body}


def validate_externals(externals: Any) -> list[dict[str, Any]]:
    """The scenario's externals, each as :func:`external` builds it; names unique."""
    if isinstance(externals, (str, bytes, Mapping)) or not isinstance(externals, Sequence):
        raise UserError(f"define_scenario: externals must be a list of external(...), got {externals!r}")
    result = []
    for index, item in enumerate(externals):
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str) or "host" not in item:
            raise UserError(f"define_scenario: externals[{index}] must be an external(...), got {item!r}")
        result.append(external(item["name"], item["host"], item.get("responses") or [], item.get("dedupeBy")))
    names = [item["name"] for item in result]
    for name in names:
        if names.count(name) > 1:
            raise UserError(f"define_scenario: external {name!r} is declared {names.count(name)} times")
    return result


def assumptions(externals: Iterable[Mapping[str, Any]]) -> list[str]:
    """One sentence per declared external, as the verdict lists it, and the rule for the rest."""
    externals = list(externals)
    sentences = []
    for item in externals:
        routes = item.get("responses") or []
        if routes:
            scripted = "; ".join(route_text(route) for route in routes)
            answer = f"answers only its scripted replies ({scripted})"
        else:
            answer = "answers every request 200 with an empty body"
        guarantee = (
            f"a request repeating an earlier {item['dedupeBy']} header gets the earlier reply and does nothing again"
            if item.get("dedupeBy")
            else "it deduplicates nothing: every request that reaches it takes effect"
        )
        sentences.append(f"External {item['name']} (host {item['host']}) is declared, not called: it {answer}; {guarantee}.")
    if any(len(route.get("replies") or ()) > 1 for item in externals for route in item.get("responses") or []):
        sentences.append(
            "A route with a sequence of replies gives the n-th reply to the n-th request it answers in a run "
            "(requests a fault stopped before the external not counted), the last reply repeating; every run starts over."
        )
    sentences.append(
        "Outbound fetch never reaches the network: a request to a host no external declares, or one no scripted "
        "reply answers, makes the run UNSUPPORTED (outbound_request)."
    )
    return sentences


def route_text(route: Mapping[str, Any]) -> str:
    """``GET /v1/items* ?cursor=c2 -> 429, 200`` (a single exact route reads as it always did)."""
    where = route["path"] if "path" in route else f"/{route['pattern']}/"
    query = "&".join(f"{key}={value}" for key, value in (route.get("query") or {}).items())
    statuses = ", ".join(str(reply["status"]) for reply in route["replies"]) if "replies" in route else str(route["status"])
    return f"{route['method']} {where}" + (f" ?{query}" if query else "") + f" -> {statuses}"
