"""eutaxy.cloudflare: check Cloudflare Workers under faults.

A scenario file (``*.sim.py``) builds its ``scenario`` with the helpers here;
:func:`create_platform` turns it into the platform the engine runs, backed by
one Node host that keeps the Worker loaded in workerd for the whole check
(and, within :func:`reuse_hosts`, serves the next platform's Worker after it);
:func:`expect_holds` is what regression tests call. The selectors and keys over
Workers targets are this package's (``selectors``); the invariants and the generic
``rows`` query are core's, re-exported so a scenario file needs one import.
"""

from eutaxy.core.invariants import (
    aggregate as aggregate,
    at_least_once as at_least_once,
    at_least_once_per_message as at_least_once_per_message,
    at_most_once_per_key as at_most_once_per_key,
    every_row as every_row,
    implies as implies,
    in_order_per_key as in_order_per_key,
    max_interval_per_key as max_interval_per_key,
    min_interval_per_key as min_interval_per_key,
    references as references,
    refines as refines,
    unique as unique,
)
from eutaxy.core.selectors import rows as rows
from eutaxy.engine.holes import todo as todo

from .bindings.d1 import d1_schema as d1_schema
from .bindings.durable_object import durable_object as durable_object
from .bindings.workflow import workflow as workflow
from .callee import callee as callee
from .cron import cron as cron
from .externals import external as external
from .host import reuse_hosts as reuse_hosts
from .http import http as http
from .bindings.kv import kv_namespace as kv_namespace
from .loader import load_scenario as load_scenario
from .platform import (
    CloudflarePlatform as CloudflarePlatform,
    create_platform as create_platform,
    check as check,
    expect_holds as expect_holds,
    with_environment as with_environment,
)
from .queues import queue as queue
from .bindings.r2 import r2_bucket as r2_bucket
from .bindings.service import service as service, service_error as service_error, service_replies as service_replies
from .rpc import rpc as rpc
from .scenario import define_scenario as define_scenario
from .websocket import websocket as websocket
from .selectors import (
    d1_param as d1_param,
    d1_read as d1_read,
    d1_rows as d1_rows,
    d1_write as d1_write,
    do_call as do_call,
    durable_object_rows as durable_object_rows,
    durable_object_table as durable_object_table,
    fetch_call as fetch_call,
    http_response as http_response,
    kv_key as kv_key,
    kv_read as kv_read,
    kv_rows as kv_rows,
    kv_write as kv_write,
    queue_ack as queue_ack,
    queue_rows as queue_rows,
    queue_send as queue_send,
    websocket_received as websocket_received,
    r2_op as r2_op,
    r2_rows as r2_rows,
    rpc_response as rpc_response,
    service_call as service_call,
    workflow_create as workflow_create,
    workflow_rows as workflow_rows,
    workflow_step as workflow_step,
    workflow_steps as workflow_steps,
)

__all__ = [
    "CloudflarePlatform",
    "aggregate",
    "at_least_once",
    "at_least_once_per_message",
    "at_most_once_per_key",
    "callee",
    "check",
    "create_platform",
    "cron",
    "d1_param",
    "d1_read",
    "d1_rows",
    "d1_schema",
    "d1_write",
    "define_scenario",
    "do_call",
    "durable_object",
    "durable_object_rows",
    "durable_object_table",
    "every_row",
    "expect_holds",
    "external",
    "fetch_call",
    "http",
    "http_response",
    "implies",
    "in_order_per_key",
    "kv_key",
    "kv_namespace",
    "kv_read",
    "kv_rows",
    "kv_write",
    "load_scenario",
    "max_interval_per_key",
    "min_interval_per_key",
    "queue",
    "queue_ack",
    "queue_rows",
    "queue_send",
    "r2_bucket",
    "r2_op",
    "r2_rows",
    "references",
    "refines",
    "reuse_hosts",
    "rows",
    "rpc",
    "rpc_response",
    "service",
    "service_call",
    "service_error",
    "service_replies",
    "todo",
    "unique",
    "websocket",
    "websocket_received",
    "with_environment",
    "workflow",
    "workflow_create",
    "workflow_rows",
    "workflow_step",
    "workflow_steps",
]
