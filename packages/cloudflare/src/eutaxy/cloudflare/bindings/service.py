"""The service binding kind (``services``): the Worker behind a binding, scripted.

A service binding (``{"binding": "ORDERS", "service": "orders", "entrypoint": "OrdersApi"}``)
lets the Worker call another Worker: an RPC method (``env.ORDERS.reserve(sku)``) or fetch()
(``env.ORDERS.fetch(request)``). The callee is scripted, never called: the ``service`` step
names each method's reply (a value returned, or :func:`service_error`, an error thrown to the
caller as RPC carries it), or its replies in turn (:func:`service_replies`: the n-th call of the
method that reaches the callee in a run gets the n-th, the last repeating, as a fetch() route's
``replies``), and the replies fetch() gets, routes matched by method and path as an
external's are (:func:`eutaxy.cloudflare.externals.scripted_routes` checks them, the runtime's
fetch.mjs matches them). The runtime record (runtime/bindings/service.mjs) answers from the
script; there is no Miniflare binding behind it.

Each call is one effect, ``Service:<binding>``, op the method (``fetch`` for fetch()), with
a Durable Object stub call's ladder and meanings: crash_before and error never reached the
callee, ambiguous: the callee acted and the answer was lost, crash_after: the caller died after
the call. Cloudflare retries none of them. A binding no step scripts is UNSUPPORTED when touched
(``binding_without_setup``), as what the callee answers would be a guess; so are a method the
script lacks, a fetch() no route answers, a redirect the runtime would follow, connect() and RPC
promise pipelining (each its own cause, runtime/bindings/service.mjs).

A binding whose Worker a ``callee(...)`` step runs for real is not this kind's: ``eutaxy.cloudflare.callee``
marks it (:data:`RUN_BY`), this record leaves it out of its bindings (its step, its load entry,
its assumptions) and the runtime's callee record owns it (runtime/bindings/callee.mjs); its
calls are ``Service:<binding>`` effects all the same (:meth:`ServiceKind.targets`). ``eutaxy
draft`` asks :meth:`ServiceKind.draft_callee` first, the place to write ``callee(...)`` for a
binding whose Worker's config it finds, and writes ``service(...)`` otherwise.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import attrs

from eutaxy.core.errors import UserError
from eutaxy.core.plain_data import json_problem

from ..externals import REPLIES_MAX, route_text, scripted_routes
from ._record import BindingKind, DraftContext, KindNames, SetupStep, effect_selector

if TYPE_CHECKING:
    from eutaxy.cloudflare.wrangler import Binding, WranglerConfig

__all__ = [
    "RUN_BY", "SERVICE", "ServiceError", "ServiceKind", "ServiceReplies", "service", "service_call", "service_error", "service_replies",
]

#: The field ``eutaxy.cloudflare.callee`` gives a service binding whose Worker a ``callee`` step
#: runs for real (the Worker's name): that binding is the callee record's, not this kind's.
RUN_BY = "callee"

#: Names a service binding's value answers itself, never an RPC method of the callee: fetch()
#: and connect() are the Fetcher's; ``then`` would make the binding a thenable; a constructor is no method.
_NOT_METHODS = frozenset({"fetch", "connect", "then", "constructor"})


@attrs.frozen
class ServiceError:
    """An error a scripted RPC method throws to its caller (:func:`service_error` builds it)."""

    name: str
    message: str


def service_error(name: str, message: str) -> ServiceError:
    """A scripted method's reply that throws: the caller gets the error as RPC carries it.

    A built-in class (``"RangeError"``, ``"TypeError"``, ...) arrives as itself with ``message``;
    any other name arrives as an ``Error`` whose message is ``"<name>: <message>"``, as workerd
    delivers a thrown error of a class of the callee's own.
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise UserError(f"service_error: name must be an error class's name such as 'RangeError', got {name!r}")
    if not isinstance(message, str):
        raise UserError(f"service_error({name!r}): message must be a string, got {message!r}")
    return ServiceError(name, message)


@attrs.frozen
class ServiceReplies:
    """A scripted RPC method's replies in turn (:func:`service_replies` builds it)."""

    replies: tuple[Any, ...]


def service_replies(*replies: Any) -> ServiceReplies:
    """A scripted method's replies in turn: the n-th call of the method that reaches the callee in a
    run gets the n-th reply, the last one repeating, as a fetch() route's ``replies`` do.

    Each reply is what a single reply is: a JSON value the call returns, or
    :func:`service_error`, thrown. A call a fault stops before the callee (crash_before, error)
    takes no reply, so the next call gets the one it would have; an ambiguous call reached the
    callee and took its reply. ``service_replies({"ok": True}, service_error("RangeError", "sold
    out"))``: the first call that reaches the callee returns, every later one throws. (A list is
    one JSON reply, returned to every call; this is the sequence.)
    """
    _count(len(replies), "service_replies")
    return ServiceReplies(tuple(replies))


def _count(given: int, where: str) -> None:
    """A method's replies in turn are one or more, at most :data:`~eutaxy.cloudflare.externals.REPLIES_MAX`."""
    if given == 0:
        raise UserError(f"{where}: give at least one reply, e.g. service_replies({{'ok': True}}, service_error('RangeError', 'sold out'))")
    if given > REPLIES_MAX:
        raise UserError(f"{where}: a method may script at most {REPLIES_MAX} replies, got {given}")


def service(
    binding: str,
    methods: Mapping[str, Any] | None = None,
    fetch: Sequence[Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """Script the Worker behind service binding ``binding``: it is never called.

    Args:
        binding: the binding's name (``services[].binding``).
        methods: ``{method: reply}``, each RPC method's reply to every call: a JSON value the
            call returns, or ``service_error(name, message)``, thrown to the caller; or
            ``service_replies(reply, ...)``, the n-th call that reaches the callee getting the
            n-th reply, the last repeating.
        fetch: the replies to fetch() through the binding, routes as an external's
            (``{"method", "path" | "pattern", "query"={}, "status"=200, "headers"={}, "body"=None}``
            or ``"replies": [...]``, the n-th request a route answers in a run getting the n-th).

    Raises:
        UserError: a method name RPC cannot call, a reply that is not JSON data, a bad route.
    """
    if not isinstance(binding, str) or not binding:
        raise UserError(f"service: binding must be a binding name such as 'ORDERS', got {binding!r}")
    label = f"service({binding!r})"
    return {"kind": "service", "binding": binding, "methods": _methods(methods or {}, label), "fetch": scripted_routes(fetch, f"{label}: fetch")}


def _methods(methods: Any, label: str) -> dict[str, dict[str, Any]]:
    """Each method's reply as the step carries it: ``{"value": v}``, ``{"error": {name, message}}``,
    or ``{"replies": [reply, ...]}`` for :func:`service_replies`."""
    if not isinstance(methods, Mapping):
        raise UserError(f"{label}: methods must be a dict of method name -> reply, got {methods!r}")
    scripted = {}
    for method, reply in methods.items():
        if not isinstance(method, str) or not method.isidentifier() or method in _NOT_METHODS:
            raise UserError(f"{label}: methods: {method!r} is not an RPC method name (an identifier other than "
                            f"{', '.join(sorted(_NOT_METHODS))}); script fetch() with fetch=[...]")
        scripted[method] = _method_reply(reply, f"{label}: methods[{method!r}]")
    return scripted


def _method_reply(reply: Any, where: str) -> dict[str, Any]:
    """A method's reply, or its replies in turn, as the step carries it."""
    if isinstance(reply, ServiceReplies):
        return {"replies": [_reply(each, f"{where}: service_replies[{index}]") for index, each in enumerate(reply.replies)]}
    return _reply(reply, where)


def _reply(reply: Any, where: str) -> dict[str, Any]:
    if isinstance(reply, ServiceReplies):
        raise UserError(f"{where}: service_replies(...) cannot be one of a method's replies; list every reply in one service_replies(...)")
    if isinstance(reply, ServiceError):
        return {"error": {"name": reply.name, "message": reply.message}}
    problem = json_problem(reply, where, tuples=False, safe_integers=True)
    if problem is not None:
        raise UserError(f"{problem} (a reply is JSON data, or service_error(name, message) to throw)")
    return {"value": reply}


def _checked_method_reply(reply: Any, where: str) -> dict[str, Any]:
    """A method's reply or replies as the step carries them (written by hand, or read back from JSON), checked."""
    if isinstance(reply, Mapping) and set(reply) == {"replies"}:
        replies = reply["replies"]
        if not isinstance(replies, list):
            raise UserError(f"{where}: replies must be a list of {{'value': ...}} or {{'error': ...}}; build the step with service(...)")
        _count(len(replies), f"{where}: replies")
        return {"replies": [_checked_reply(each, f"{where}: replies[{index}]") for index, each in enumerate(replies)]}
    return _checked_reply(reply, where)


def _checked_reply(reply: Any, where: str) -> dict[str, Any]:
    """A reply as the step carries it (a step written by hand, or read back from JSON), checked."""
    if isinstance(reply, Mapping) and set(reply) == {"value"}:
        return _reply(reply["value"], where)
    if isinstance(reply, Mapping) and set(reply) == {"error"} and isinstance(reply["error"], Mapping) and set(reply["error"]) == {"name", "message"}:
        return _reply(service_error(reply["error"]["name"], reply["error"]["message"]), where)
    raise UserError(f"{where} must be {{'value': ...}}, {{'error': {{'name', 'message'}}}} or {{'replies': [...]}}; build the step with service(...)")


def _replies_text(reply: Mapping[str, Any]) -> str:
    """``returns``, ``throws RangeError``, or a method's replies in turn: ``returns, then throws RangeError``."""
    said = [f"throws {each['error']['name']}" if "error" in each else "returns" for each in reply.get("replies", [reply])]
    return ", then ".join(said)


def service_call(binding: str, method: str | list[str] | None = None, *, ok: bool | None = None) -> dict[str, Any]:
    """Calls through service binding ``binding`` that reached the callee (``Service:<binding>``), by method.

    ``method`` is the RPC method, or ``fetch`` for fetch(). A call a fault stopped before the
    callee (crash_before, error) has no result, so it is not selected; an ambiguous one reached
    it and is. Its result is ``{ok: true, value}`` or ``{ok: false, error: {name, message}}`` for a
    method, ``{status, ok, body}`` for fetch(); ``ok`` selects by it (a method that returned or
    threw; a fetch answered 2xx or not).
    """
    return effect_selector(f"Service:{binding}", method, where=None if ok is None else {"result.ok": ok})


# A callee Worker's bindings (of any kind) are qualified by its name; both sides of that rule are
# here, beside the service kind that sends a scripted binding's owner to the runtime.
def qualified(worker: str, name: str) -> str:
    """A callee's binding as the isolate names it: ``inventory/DB``."""
    return f"{worker}/{name}"


def owner_of(binding: str) -> str | None:
    """The Worker a service binding belongs to: None for the caller's (a bare name), else its qualifier
    (``inventory/PARTNER`` is the inventory callee's)."""
    owner, slash, _ = binding.partition("/")
    return owner if slash else None


@attrs.frozen(kw_only=True)
class ServiceKind(BindingKind):
    """Service bindings: the callee scripted by the ``service`` step (runtime/bindings/service.mjs)."""

    def check_step(self, step: Mapping[str, Any], where: str) -> dict[str, Any]:
        methods = step.get("methods") or {}
        if not isinstance(methods, Mapping):
            raise UserError(f"{where}: methods must be {{method: reply}}; build the step with service(...)")
        checked = {}
        for method, reply in methods.items():
            _methods({method: None}, where)
            checked[method] = _checked_method_reply(reply, f"{where}: methods[{method!r}]")
        return {"kind": self.setup_step, "binding": step["binding"], "methods": checked, "fetch": scripted_routes(step.get("fetch"), f"{where}: fetch")}

    def resources(self, config: "WranglerConfig") -> dict[str, str]:
        """Binding -> the Worker it names, of each binding the script answers: a binding a callee
        runs (:data:`RUN_BY`) is the callee's."""
        return {binding.name: self.resource_of(binding) for binding in config.bindings if binding.kind == self.name and RUN_BY not in binding.fields}

    def targets(self, config: "WranglerConfig") -> list[str]:
        """Every service binding: a call through one a callee runs is a ``Service:<binding>`` effect too."""
        return [binding.name for binding in config.bindings if binding.kind == self.name]

    def binding_settings(self, binding: "Binding") -> dict[str, Any]:
        """The Worker the binding names, its entrypoint (None: the default export), and the Worker
        whose binding it is (:func:`owner_of`: None for the loaded Worker's, else a callee's name)."""
        return {"service": self.resource_of(binding), "entrypoint": binding.fields.get("entrypoint"), "owner": owner_of(binding.name)}

    def setup_hint(self, binding: str) -> str | None:
        return f"{self.setup_step}({json.dumps(binding)}, methods={{...}}, fetch=[...])"

    def assumptions(self, config: "WranglerConfig", steps: Sequence[Mapping[str, Any]]) -> list[str]:
        scripted = {step["binding"]: step for step in steps}
        callees = []
        for binding in config.bindings:
            if binding.kind != self.name or binding.name not in self.resources(config):
                continue
            entrypoint = binding.fields.get("entrypoint")
            named = f"{binding.name} (Worker {self.resource_of(binding)}{f', entrypoint {entrypoint}' if entrypoint else ''})"
            step = scripted.get(binding.name)
            if step is not None:
                said = [f"{method}() {_replies_text(reply)}" for method, reply in step["methods"].items()]
                said += [f"fetch {route_text(route)}" for route in step["fetch"]]
                named += f": {'; '.join(said) if said else 'nothing scripted'}"
            callees.append(named)
        in_turn = any("replies" in reply for step in steps for reply in step["methods"].values())
        return [
            f"Callees were scripted, not run: the Workers behind service bindings {', '.join(callees)} answer only "
            "their service steps' replies (a method the script lacks, a fetch() no route answers, a redirect the runtime "
            "would follow, connect() and RPC promise pipelining are UNSUPPORTED). "
            + ("A method's replies in turn go to its calls that reach the callee in a run, the n-th to the n-th (a call "
               "a fault stopped before the callee takes none), the last repeating; every run starts over. " if in_turn else "")
            + "Each call through a binding is one "
            "effect (crash_before and error: it never reached the callee; ambiguous: the callee acted and the answer "
            "was lost; crash_after: the caller died after it), and Cloudflare retries none of them."
        ]

    def draft_callee(self, binding: "Binding", draft: DraftContext) -> tuple[dict[str, Any], list[str]] | None:
        """The step ``eutaxy draft`` writes when the callee can run for real (a wrangler config of
        the Worker the binding names, found under the folder); None: it is scripted."""
        from ..callee import draft_callee  # the callee module reads this kind's records

        return draft_callee(binding, draft)

    def draft_setup(self, binding: "Binding", draft: DraftContext) -> tuple[dict[str, Any], list[str]]:
        """``callee(...)`` when :meth:`draft_callee` finds the Worker, else ``service(...)`` with a
        hole per method the Worker calls on the binding, and one for fetch() when it fetches through it."""
        run = self.draft_callee(binding, draft)
        if run is not None:
            return run
        called = list(dict.fromkeys(method for name, method, _ in draft.scan.binding_calls if name == binding.name))
        methods = [method for method in called if method not in _NOT_METHODS]
        worker = self.resource_of(binding)
        step: dict[str, Any] = {"kind": self.setup_step, "binding": binding.name, "methods": {}, "fetch": []}
        lines = [f"{self.setup_step}({json.dumps(binding.name)}, methods={{"]
        for method in methods:
            hole = draft.hole(f"{binding.name}.{method}", f"what Worker {worker} answers {method}(): a JSON value, or service_error(name, message); "
                              "service_replies(reply, ...) for a reply per call in turn")
            lines.append(f"    {json.dumps(method)}: {hole},")
        fetch = ""
        if "fetch" in called:
            fetch = ", fetch=" + draft.hole(f"{binding.name}.fetch", f"the routes Worker {worker} answers fetch() with: [{{method, path, status, body}}]")
        lines.append(f"}}{fetch}),")
        if not methods:
            lines = [f"{self.setup_step}({json.dumps(binding.name)}{fetch}),"]
        if methods:
            draft.uses("service_error")
        said = ", ".join([f"{method}()" for method in methods] + (["fetch()"] if fetch else []))
        entrypoint = binding.fields.get("entrypoint")
        callee = f"Worker {worker}" + (f", entrypoint {entrypoint}" if entrypoint else "")
        draft.note("guess", f"service binding {binding.name} ({callee}) is scripted, never called: "
                   + (f"the Worker calls {said} through it; give each the reply the callee gives" if said else
                      "the scan read no call through it; script each method the Worker calls (methods={...}) and its fetch() routes (fetch=[...])"))
        return step, lines


SERVICE = ServiceKind(
    name="service",
    names=KindNames(label="Service", title="service", plural="service bindings", noun="Worker"),
    # {"binding": "ORDERS", "service": "orders", "entrypoint": "OrdersApi"}: the entrypoint is optional (the default export).
    section="services", resource_field="service", resource_required=True, fields=("entrypoint",),
    section_note=(
        "The Worker behind each binding is scripted by `service` (its methods' replies, its fetch() routes), or run for "
        "real by `callee`; a binding with neither stands in as a trap (UNSUPPORTED when touched)."
    ),
    setup=SetupStep("service", without="unsupported", gives="the replies"),
    selectors=("service_call",),
    # A call's answer can be lost after the callee acted (ambiguous), as a Durable Object stub call's.
    operations={"call": "write"},
)
