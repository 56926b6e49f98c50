"""Selectors and keys over what the Workers platform records: D1, KV, R2, queues, outbound fetch, http, Durable Objects.

Each helper returns the plain selector data ``eutaxy.core.selectors`` matches (``{"target",
"op", "kind", "where"}``) or a state query (``{"kind": "rows", ...}``), so a selector written
by hand and one built here are the same thing. They live with the platform whose targets
they name (``D1:<binding>``, ``KV:<binding>``, ``R2:<binding>``, ``Queue:<name>``, ``Fetch:<external>``,
``Http:<path>``, ``DO:<binding>``, ``Workflow:<binding>``), as
``eutaxy.aws.selectors`` holds AWS's; core keeps only the machinery that reads them. A
registered binding kind's selectors are its record's (``bindings/<kind>.py``), re-exported here.
"""

from __future__ import annotations

from typing import Any

from .bindings import effect_selector as _selector
from .bindings.d1 import d1_param as d1_param, d1_read as d1_read, d1_rows as d1_rows, d1_write as d1_write
from .bindings.durable_object import (
    do_call as do_call,
    durable_object_rows as durable_object_rows,
    durable_object_table as durable_object_table,
)
from .bindings.kv import kv_key as kv_key, kv_read as kv_read, kv_rows as kv_rows, kv_write as kv_write
from .bindings.queue_consumer import queue_ack as queue_ack
from .bindings.queue_producer import queue_rows as queue_rows, queue_send as queue_send
from .bindings.r2 import r2_op as r2_op, r2_rows as r2_rows
from .bindings.service import service_call as service_call
from .bindings.workflow import (
    workflow_create as workflow_create,
    workflow_rows as workflow_rows,
    workflow_step as workflow_step,
    workflow_steps as workflow_steps,
)

__all__ = [
    "d1_param",
    "d1_read",
    "d1_rows",
    "d1_write",
    "do_call",
    "durable_object_rows",
    "durable_object_table",
    "fetch_call",
    "http_response",
    "kv_key",
    "kv_read",
    "kv_rows",
    "kv_write",
    "queue_ack",
    "queue_rows",
    "queue_send",
    "r2_op",
    "r2_rows",
    "rpc_response",
    "service_call",
    "websocket_received",
    "workflow_create",
    "workflow_rows",
    "workflow_step",
    "workflow_steps",
]


def fetch_call(external: str, method: str | None = None, ok: bool | None = None) -> dict[str, Any]:
    """Requests to a declared external that took effect (not answered from its dedupe key).

    ``ok=True`` narrows to answers with a 2xx status: a call the external refused (a 503)
    took effect as a request but did nothing the Worker asked for. ``ok=False`` keeps the rest.
    (Which effects take effect, kind by kind, is in docs/core.md.)
    """
    where: dict[str, Any] = {"result.effective": True}
    if ok is True:
        where["result.status"] = {"gte": 200, "lt": 300}
    elif ok is False:
        where["result.status"] = {"gte": 300}  # fetch never hands a Worker a 1xx answer
    return _selector(f"Fetch:{external}", method, where=where)


def http_response(path: str, ok: bool | None = None) -> dict[str, Any]:
    """Responses the Worker returned for ``path``; ``ok`` narrows to 2xx (True) or the rest."""
    return _selector(f"Http:{path}", "response", where=None if ok is None else {"result.ok": ok})


def rpc_response(method: str, ok: bool | None = None, *, entrypoint: str | None = None) -> dict[str, Any]:
    """The answers of an rpc drive's calls to ``method`` (of the named ``entrypoint``, else the
    default export); ``ok`` narrows to values returned (True) or exceptions (False)."""
    target = f"Rpc:{method}" if entrypoint is None else f"Rpc:{entrypoint}.{method}"
    return _selector(target, "response", where=None if ok is None else {"result.ok": ok})


def websocket_received(connection: str) -> dict[str, Any]:
    """The frames the object sent on a connection of the websocket drive, in arrival order.

    Each is ``WebSocket:<connection>`` op ``message``, ``args.data`` the frame as text.
    """
    return _selector(f"WebSocket:{connection}", "message")
