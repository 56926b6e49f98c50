"""Externals: the outside services a Worker fetches, declared with what they guarantee.

Outbound fetch never reaches the network. Each host the Worker talks to is
declared with :func:`external`: its name (the effect target ``Fetch:<name>``),
its host (exact, or a ``*.suffix`` pattern for its subdomains), the replies it
gives by method and path (none scripted: every request gets 200 and an empty
body) and what it guarantees under retries (``dedupe_by``: a request repeating
an earlier one's header value gets the earlier reply and did nothing). A request
to an undeclared host, or one no scripted reply answers, makes the run
UNSUPPORTED. A verdict is only as good as these declarations, so
:func:`assumptions` states each one among the verdict's assumptions.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Mapping, Sequence

from eutaxy.core.errors import UserError

__all__ = ["assumptions", "external", "validate_externals"]

_HOST = re.compile(r"^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_HEADER = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_RESPONSE_FIELDS = frozenset({"method", "path", "status", "headers", "body"})


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
        responses: scripted replies, each ``{"method", "path", "status"=200, "headers"={},
            "body"=None}``; the first with the request's method and URL path answers. A
            string body is sent as text, any other JSON value as JSON.
        dedupe_by: a request header (``"Idempotency-Key"``) whose repeated value gets the
            earlier reply and is recorded as not effective.
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise UserError(f"external: name must be letters, digits, '.', '_' or '-', got {name!r}")
    label = f"external({name!r})"
    if not isinstance(host, str) or not _HOST.match(host.lower()):
        raise UserError(f"{label}: host must be a host name such as 'api.pay.example' or a pattern '*.pay.example', got {host!r}")
    if responses is None:
        responses = []
    if isinstance(responses, (str, bytes, Mapping)) or not isinstance(responses, Sequence):
        raise UserError(f"{label}: responses must be a list of {{'method', 'path', 'status', 'body'}}, got {responses!r}")
    if dedupe_by is not None and (not isinstance(dedupe_by, str) or not _HEADER.match(dedupe_by)):
        raise UserError(f"{label}: dedupe_by must be a header name such as 'Idempotency-Key', got {dedupe_by!r}")
    return {
        "name": name,
        "host": host.lower(),
        "responses": [_response(response, f"{label}: responses[{index}]") for index, response in enumerate(responses)],
        "dedupeBy": dedupe_by,
    }


def _response(response: Any, label: str) -> dict[str, Any]:
    if not isinstance(response, Mapping):
        raise UserError(f"{label} must be a dict with a method and a path, got {response!r}")
    unknown = set(response) - _RESPONSE_FIELDS
    if unknown:
        raise UserError(f"{label} has unknown fields {', '.join(sorted(unknown))}")
    method = response.get("method")
    if not isinstance(method, str) or not method.isalpha():
        raise UserError(f"{label}: method must be an HTTP method such as 'POST', got {method!r}")
    path = response.get("path")
    if not isinstance(path, str) or not path.startswith("/") or "?" in path:
        raise UserError(f"{label}: path must be a URL path starting with '/' (no query), got {path!r}")
    status = response.get("status", 200)
    if isinstance(status, bool) or not isinstance(status, int) or not 200 <= status <= 599:
        raise UserError(f"{label}: status must be an HTTP status from 200 to 599, got {status!r}")
    headers = response.get("headers", {})
    if not isinstance(headers, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items()):
        raise UserError(f"{label}: headers must be a dict of strings, got {headers!r}")
    body = response.get("body")
    try:
        same = json.loads(json.dumps(body, allow_nan=False)) == body
    except (TypeError, ValueError):
        same = False
    if not same:
        raise UserError(f"{label}: body must be JSON data or a string, got {body!r}")
    return {"method": method.upper(), "path": path, "status": status, "headers": dict(headers), "body": body}


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
    sentences = []
    for item in externals:
        replies = item.get("responses") or []
        if replies:
            scripted = "; ".join(f"{r['method']} {r['path']} -> {r['status']}" for r in replies)
            answer = f"answers only its scripted replies ({scripted})"
        else:
            answer = "answers every request 200 with an empty body"
        guarantee = (
            f"a request repeating an earlier {item['dedupeBy']} header gets the earlier reply and does nothing again"
            if item.get("dedupeBy")
            else "it deduplicates nothing: every request that reaches it takes effect"
        )
        sentences.append(f"External {item['name']} (host {item['host']}) is declared, not called: it {answer}; {guarantee}.")
    sentences.append(
        "Outbound fetch never reaches the network: a request to a host no external declares, or one no scripted "
        "reply answers, makes the run UNSUPPORTED (outbound_request)."
    )
    return sentences
