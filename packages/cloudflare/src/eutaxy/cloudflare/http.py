"""The http drive: requests sent to the Worker's ``fetch()`` by a declared caller.

Cloudflare never retries an inbound request, so the scenario says who is
calling: a webhook provider resends until it gets a 2xx (``retry_on="non-2xx"``,
the default) or only on failures and 5xx (``"5xx"``), up to ``retries`` times,
after ``delays_ms`` of virtual time; a browser-like caller has ``retries=0``.
With ``deadline_ms`` the caller also counts a late answer as failed, which adds
the ambiguous outcome to the response point (sent, counted failed, the handler
carries on).

Events are numbered ``req-1``, ``req-2``, ... in the order given unless a
request names its own ``id``; the shrinker removes events by id.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from eutaxy.core.errors import UserError
from eutaxy.core.plain_data import json_problem
from eutaxy.engine.holes import Hole
from eutaxy.engine.scenario import EVENT_TIME_FIELD, default_event_id, event_at_ms

__all__ = ["RETRY_ON", "caller_assumption", "caller_policy", "http", "known_fields", "listed_events", "request_headers", "request_path", "resend_clause"]

#: What a caller may count as failed: anything but 2xx, or 5xx only.
RETRY_ON = ("non-2xx", "5xx")

_REQUEST_FIELDS = frozenset({"id", "method", "path", "headers", "body", "at_ms", EVENT_TIME_FIELD})
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_NO_BODY = frozenset({"GET", "HEAD"})


def http(
    requests: Sequence[Mapping[str, Any]] | Hole,
    *,
    retries: int = 0,
    retry_on: str = "non-2xx",
    delays_ms: Sequence[int] = (),
    deadline_ms: int | None = None,
    name: str = "http",
) -> dict[str, Any]:
    """Drive the Worker's ``fetch()`` with ``requests`` from the caller described.

    Each request is ``{"method": "POST", "path": "/refunds", "headers": {...},
    "body": ...}``: ``method`` defaults to GET, ``path`` (required) starts with
    ``/`` and may carry a query; ``body`` is any JSON value (sent as JSON) or a
    string (sent as text), and GET and HEAD take none. A request may also carry
    an ``id``, and ``at_ms``: the virtual milliseconds after the run's start at which
    the caller sends it (requests go in order of time, then of listing; none: at the start).

    Args:
        retries: how many times the caller resends a failed request (0: never).
        retry_on: ``"non-2xx"`` (every answer but a 2xx is a failure) or ``"5xx"``.
        delays_ms: the virtual delay before each resend; the last repeats, none means 0.
        deadline_ms: how long the caller waits for an answer, in virtual time; None: forever.
        name: the drive's name, as ``at_least_once_per_message`` names it.

    Returns:
        The drive as the contract's plain dict (``kind: "http"``, ``events``, ``caller``).
    """
    if not isinstance(name, str) or not name:
        raise UserError(f"http: name must be a non-empty string, got {name!r}")
    if isinstance(requests, Hole):
        # A draft's todo(...): define_scenario refuses it, naming the hole and its line.
        return {"kind": "http", "name": name, "events": requests, "caller": _caller(retries, retry_on, delays_ms, deadline_ms)}
    events = listed_events("http", requests, "request", "{'method', 'path', ...}", _request)
    return {"kind": "http", "name": name, "events": events, "caller": _caller(retries, retry_on, delays_ms, deadline_ms)}


def _request(request: Any, index: int) -> dict[str, Any]:
    label = f"http: request {index}"
    request = known_fields(request, label, _REQUEST_FIELDS, "a method and a path", "request", ", ".join(sorted(_REQUEST_FIELDS - {EVENT_TIME_FIELD})))
    method = request.get("method", "GET")
    if not isinstance(method, str) or method.upper() not in _METHODS:
        raise UserError(f"{label}: method must be one of {', '.join(sorted(_METHODS))}, got {method!r}")
    method = method.upper()
    path = request_path(request.get("path"), label)
    headers = request_headers(request.get("headers", {}), label)
    body = request.get("body")
    if body is not None and method in _NO_BODY:
        raise UserError(f"{label}: a {method} request takes no body")
    _check_json(body, label)
    event_id = request.get("id", default_event_id("http", index + 1))
    if not isinstance(event_id, str) or not event_id or "#" in event_id:
        raise UserError(f"{label}: id must be a non-empty string without '#', got {event_id!r}")
    event = {"id": event_id, "method": method, "path": path, "headers": headers, "body": body}
    at_ms = event_at_ms(request, f"{label} ({event_id})")
    if at_ms is not None:
        event[EVENT_TIME_FIELD] = at_ms
    return event


def listed_events(what: str, entries: Any, noun: str, shape: str, event: Callable[[Any, int], dict[str, Any]]) -> list[dict[str, Any]]:
    """A caller's drive's entries (the http drive's requests, the rpc drive's calls) as its events.

    ``entries`` must be a list (of ``shape``), with one ``noun`` at least; ``event`` checks
    each (by its index) and makes its event; the events' ids must differ. ``what`` names the
    helper in an error.
    """
    if isinstance(entries, (str, bytes, Mapping)) or not isinstance(entries, Sequence):
        raise UserError(f"{what}: {noun}s must be a list of {shape}, got {entries!r}")
    events = [event(entry, index) for index, entry in enumerate(entries)]
    if not events:
        raise UserError(f"{what}: give at least one {noun}")
    ids = [item["id"] for item in events]
    if len(set(ids)) != len(ids):
        raise UserError(f"{what}: {noun} ids repeat: {ids}")
    return events


def known_fields(entry: Any, label: str, fields: frozenset[str], shape: str, noun: str, listed: str) -> Mapping[str, Any]:
    """A drive's entry (an http request, a WebSocket connection): a dict of ``fields`` only.

    Else the error names the entry (``label``), what it must hold (``shape``), and what a
    ``noun`` has (``listed``).
    """
    if not isinstance(entry, Mapping):
        raise UserError(f"{label} must be a dict with {shape}, got {entry!r}")
    unknown = set(entry) - fields
    if unknown:
        raise UserError(f"{label} has unknown fields {', '.join(sorted(unknown))}; a {noun} has {listed}")
    return entry


def request_path(path: Any, label: str) -> str:
    """The path a request (or a WebSocket's upgrade request) is sent to: a string starting with '/'."""
    if not isinstance(path, str) or not path.startswith("/"):
        raise UserError(f"{label}: path must be a string starting with '/', got {path!r}")
    return path


def request_headers(headers: Any, label: str) -> dict[str, str]:
    """A request's (or a WebSocket's upgrade request's) headers: a dict of strings, copied."""
    if not isinstance(headers, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items()):
        raise UserError(f"{label}: headers must be a dict of strings, got {headers!r}")
    return dict(headers)


def _caller(retries: Any, retry_on: Any, delays_ms: Any, deadline_ms: Any) -> dict[str, Any]:
    if retry_on not in RETRY_ON:
        raise UserError(f"http: retry_on must be one of {', '.join(RETRY_ON)}, got {retry_on!r}")
    return caller_policy("http", retries, delays_ms, deadline_ms, retry_on=retry_on)


def caller_policy(what: str, retries: Any, delays_ms: Any, deadline_ms: Any, *, retry_on: str | None = None) -> dict[str, Any]:
    """A declared caller (the http drive's, the rpc drive's), checked: ``{retries, retryOn?, delaysMs, deadlineMs}``.

    ``what`` names the helper in an error; ``retryOn`` is written only when given (an rpc
    caller counts every exception failed and has none).
    """
    if not _natural(retries):
        raise UserError(f"{what}: retries must be a non-negative integer, got {retries!r}")
    if isinstance(delays_ms, (str, bytes)) or not isinstance(delays_ms, Sequence) or not all(_natural(d) for d in delays_ms):
        raise UserError(f"{what}: delays_ms must be a list of non-negative integers (milliseconds), got {delays_ms!r}")
    if deadline_ms is not None and not _natural(deadline_ms):
        raise UserError(f"{what}: deadline_ms must be a non-negative integer (milliseconds) or None, got {deadline_ms!r}")
    policy: dict[str, Any] = {"retries": retries}
    if retry_on is not None:
        policy["retryOn"] = retry_on
    return {**policy, "delaysMs": list(delays_ms), "deadlineMs": deadline_ms}


def _natural(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _check_json(value: Any, label: str) -> None:
    """A body must survive the trip to the runtime as JSON unchanged (so no tuples either)."""
    problem = json_problem(value, "body", tuples=False, safe_integers=True)
    if problem is not None:
        raise UserError(f"{label}: {problem}")


def caller_assumption(drive: Mapping[str, Any]) -> str:
    """The sentence a verdict lists for the http drive's declared caller."""
    caller = drive.get("caller") or {}
    failed = "any answer but a 2xx" if caller.get("retryOn", "non-2xx") == "non-2xx" else "a 5xx answer"
    return (
        "Inbound requests: one invocation per attempt; an uncaught exception or a result that is not a Response "
        "is a 500. Cloudflare never retries an inbound request, so the declared caller decides: "
        + resend_clause(caller, "request", failed)
    )


def resend_clause(caller: Mapping[str, Any], noun: str, failed: str) -> str:
    """What a declared caller does with a failed ``noun`` (``failed``: what it counts failed), as a verdict says it."""
    retries = caller.get("retries", 0)
    delays = caller.get("delaysMs") or []
    deadline = caller.get("deadlineMs")
    if retries == 0:
        sentence = f"it sends each {noun} once and gives up (gave_up) after no answer or {failed}"
    else:
        sentence = f"it resends a {noun} up to {retries} time{'s' if retries > 1 else ''} after no answer or {failed}"
    if delays:
        sentence += f", waiting {', '.join(str(d) for d in delays)} ms of virtual time before the resends"
    if deadline is not None:
        sentence += (
            f"; it waits {deadline} ms (virtual) for an answer, so a later answer counts as failed and the response "
            "may be the ambiguous outcome (sent, counted failed, the handler carries on)"
        )
    return sentence + ("." if retries == 0 else "; when the retries are spent it gives up (gave_up).")
