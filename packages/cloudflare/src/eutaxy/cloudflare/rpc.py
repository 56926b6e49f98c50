"""The rpc drive: calls to the methods of a WorkerEntrypoint, by a declared caller.

Each call is ``{"method": "reserve", "args": [...]}``: one event (``call-1``, ``call-2``, ...
unless it names its ``id``), and each attempt constructs the entrypoint anew and calls the
method, as the runtime does per RPC call. The entrypoint is the Worker's default export, or
the named export ``entrypoint`` gives; either must be a class extending WorkerEntrypoint.

Cloudflare never retries an RPC call, so the scenario says who calls and what it does with a
failure, as for inbound requests (``eutaxy.cloudflare.http``) but without ``retry_on``: a
call that threw, got no answer or (with ``deadline_ms``) answered late is resent up to
``retries`` times (default 0: a calling Worker resends only when written to), after
``delays_ms`` of virtual time.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from eutaxy.core.errors import UserError
from eutaxy.core.plain_data import json_problem
from eutaxy.engine.holes import Hole
from eutaxy.engine.scenario import EVENT_TIME_FIELD, default_event_id, event_at_ms

from .http import caller_policy, known_fields, listed_events, resend_clause

__all__ = ["ENHANCED_ERROR_SERIALIZATION_DATE", "enhanced_error_serialization", "error_serialization_assumption", "rpc", "rpc_assumption"]

#: The compatibility date from which workerd's ``enhanced_error_serialization`` is on by default
#: (``legacy_error_serialization`` turns it off, ``enhanced_error_serialization`` on before it).
ENHANCED_ERROR_SERIALIZATION_DATE = "2026-04-21"

_CALL_FIELDS = frozenset({"id", "method", "args", "at_ms", EVENT_TIME_FIELD})


def rpc(
    calls: Sequence[Mapping[str, Any]] | Hole,
    *,
    retries: int = 0,
    delays_ms: Sequence[int] = (),
    deadline_ms: int | None = None,
    entrypoint: str | None = None,
    name: str = "rpc",
) -> dict[str, Any]:
    """Drive a WorkerEntrypoint's methods with ``calls`` from the caller described.

    Each call is ``{"method": "reserve", "args": ["sku-1", 2]}``: ``method`` (required) names a
    method of the entrypoint class, ``args`` (default none) its JSON arguments in order. A call
    may also carry an ``id`` and ``at_ms`` (the virtual time it is made at, as an http request's).

    Args:
        retries: how many times the caller calls again after a failed call (0: never).
        delays_ms: the virtual delay before each resend; the last repeats, none means 0.
        deadline_ms: how long the caller waits for an answer, in virtual time; None: forever.
        entrypoint: the named export to call (a class extending WorkerEntrypoint); None: the default export.
        name: the drive's name, as ``at_least_once_per_message`` names it.

    Returns:
        The drive as the contract's plain dict (``kind: "rpc"``, ``entrypoint``, ``events``, ``caller``).
    """
    if not isinstance(name, str) or not name:
        raise UserError(f"rpc: name must be a non-empty string, got {name!r}")
    if entrypoint is not None and (not isinstance(entrypoint, str) or not entrypoint.isidentifier()):
        raise UserError(f"rpc: entrypoint must name an export of the Worker (an identifier) or be None, got {entrypoint!r}")
    caller = caller_policy("rpc", retries, delays_ms, deadline_ms)
    if isinstance(calls, Hole):
        # A draft's todo(...): define_scenario refuses it, naming the hole and its line.
        return {"kind": "rpc", "name": name, "entrypoint": entrypoint, "events": calls, "caller": caller}
    events = listed_events("rpc", calls, "call", "{'method', 'args'}", _call)
    return {"kind": "rpc", "name": name, "entrypoint": entrypoint, "events": events, "caller": caller}


def _call(call: Any, index: int) -> dict[str, Any]:
    label = f"rpc: call {index}"
    call = known_fields(call, label, _CALL_FIELDS, "a method and its args", "call", ", ".join(sorted(_CALL_FIELDS - {EVENT_TIME_FIELD})))
    method = call.get("method")
    if not isinstance(method, str) or not method.isidentifier() or method == "constructor":
        raise UserError(f"{label}: method must name a method of the entrypoint, got {method!r}")
    args = call.get("args", [])
    if isinstance(args, (str, bytes, Mapping)) or not isinstance(args, Sequence):
        raise UserError(f"{label}: args must be a list of the method's arguments, got {args!r}")
    problem = json_problem(list(args), "args", tuples=False, safe_integers=True)
    if problem is not None:
        raise UserError(f"{label}: {problem}")
    event_id = call.get("id", default_event_id("rpc", index + 1))
    if not isinstance(event_id, str) or not event_id or "#" in event_id:
        raise UserError(f"{label}: id must be a non-empty string without '#', got {event_id!r}")
    event: dict[str, Any] = {"id": event_id, "method": method, "args": list(args)}
    at_ms = event_at_ms(call, f"{label} ({event_id})")
    if at_ms is not None:
        event[EVENT_TIME_FIELD] = at_ms
    return event


def rpc_assumption(drive: Mapping[str, Any]) -> str:
    """The sentence a verdict lists for the rpc drive and its declared caller."""
    entrypoint = drive.get("entrypoint")
    which = "the default export" if entrypoint is None else f"the export {entrypoint}"
    return (
        f"Inbound RPC: one invocation per call attempt, {which} constructed anew for each; an exception reaches "
        "the caller as RPC carries it (its name and message). Cloudflare never retries an RPC call, so the declared "
        "caller decides: " + resend_clause(drive.get("caller") or {}, "call", "an exception")
    )


def enhanced_error_serialization(date: str | None, flags: Sequence[str]) -> bool:
    """Whether a Worker of this compatibility date and these flags serializes errors crossing RPC the enhanced way."""
    if "legacy_error_serialization" in flags:
        return False
    return "enhanced_error_serialization" in flags or (date or "") >= ENHANCED_ERROR_SERIALIZATION_DATE


def error_serialization_assumption(worker: str, enhanced: bool, *, scripted: Sequence[str], rpc_drive: bool) -> str | None:
    """The verdict's sentence for what the model decides itself about errors crossing RPC under
    ``enhanced_error_serialization``, else None.

    The runtime carries a thrown value by each side's setting (runtime/bindings/service.mjs
    ``thrownAcross``, measured, runtime/test/rpc_thrown.json): the loaded Worker's as workerd
    answers, a callee's from its config. Two sides have no config: a scripted service binding's
    Worker (``scripted``: those whose caller has the setting on) is taken to have its caller's
    setting, and the rpc drive's caller the loaded Worker's (``worker``, ``enhanced``), whose
    answer records the thrown value's name and message only. Without the setting on the
    caller's side the callee's changes nothing (measured), so nothing is said then.
    """
    parts = []
    if scripted:
        parts.append(f"the Worker behind the scripted service binding{'s' if len(scripted) > 1 else ''} {', '.join(scripted)} is taken "
                     "to have its caller's (a service_error crosses as an Error keeping its name)")
    if enhanced and rpc_drive:
        parts.append(f"the rpc drive's caller is taken to have {worker}'s, and its answer records the thrown value's name and message "
                     "only: the own properties and the copy of a thrown object workerd also carries to it are not checked")
    if not parts:
        return None
    return (f"A value thrown across RPC reaches the caller as workerd carries it under each side's enhanced_error_serialization "
            f"(on from compatibility_date {ENHANCED_ERROR_SERIALIZATION_DATE}, or the flag; a callee's its config's); " + "; ".join(parts) + ".")
