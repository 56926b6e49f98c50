"""Scenario helpers for Lambda on SQS with DynamoDB: they build the scenario's plain data.

A ``*.sim.py`` file binds a module-level ``scenario`` to what ``define_scenario`` returns;
``root`` and ``source`` come from the calling file, so paths in the scenario (the handler
module) are relative to it. Arguments are snake_case; the data is camelCase, as the seeds
write it.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Iterable, Mapping, Sequence

import attrs

from eutaxy.core.errors import UserError
from eutaxy.engine.scenario import (
    EVENT_TIME_FIELD,
    drive_events,
    event_at_ms,
    expect_failures_field,
    scenario_bounds,
    scenario_invariants,
    scenario_name,
)
from eutaxy.engine.scenario_file import scenario_root

from eutaxy.aws.sqs import (
    BATCH_SIZE_DEFAULT,
    BATCHING_WINDOW_S_MAX,
    DELAY_S_MAX,
    MAX_RECEIVE_COUNT_DEFAULT,
    TIMEOUT_MS_DEFAULT,
    TIMEOUT_MS_MAX,
    VISIBILITY_TIMEOUT_S_DEFAULT,
    VISIBILITY_TIMEOUT_S_MAX,
    QueueSettings,
    events_of,
    message_attribute,
    validate_drive,
)

__all__ = [
    "Message",
    "define_scenario",
    "dynamodb_table",
    "event_bus",
    "handler",
    "message",
    "s3_bucket",
    "sns_topic",
    "sqs",
    "sqs_queue",
]

_KEY_TYPES = ("HASH", "RANGE")
_ATTRIBUTE_TYPES = ("S", "N", "B")


def handler(
    path: str,
    function: str = "handler",
    *,
    timeout_ms: int = TIMEOUT_MS_DEFAULT,
    environment: Mapping[str, str] | None = None,
    python_path: Iterable[str] = (),
) -> dict[str, Any]:
    """The Lambda handler: a Python file relative to the scenario and a function in it.

    The module is imported as Lambda imports it: under its file's stem, with its folder
    first on ``sys.path`` and then ``python_path`` (folders relative to the scenario: a
    deployment package's vendored dependencies, a layer's ``python/`` folder).
    ``environment`` is set for the handler (at import and during every run), as the
    function's configuration would; ``timeout_ms`` is the function timeout (Lambda's default
    3 s, at most 900 s as Lambda allows): an invocation past it is stopped and its batch
    fails (``timed_out``), and the context's ``get_remaining_time_in_millis`` counts down
    from it in virtual time.
    """
    if not isinstance(path, str) or not path.endswith(".py"):
        raise UserError(f"handler path must be a .py file relative to the scenario, got {path!r}")
    stem = os.path.basename(path)[: -len(".py")]
    if not stem.isidentifier():
        raise UserError(f"handler path {path!r}: the file's stem must be a Python module name, as Lambda imports it")
    if not isinstance(function, str) or not function.isidentifier():
        raise UserError(f"handler function must be a Python name such as 'handler', got {function!r}")
    if not isinstance(timeout_ms, int) or isinstance(timeout_ms, bool) or timeout_ms <= 0:
        raise UserError(f"handler timeout_ms must be a positive integer, got {timeout_ms!r}")
    if timeout_ms > TIMEOUT_MS_MAX:
        raise UserError(f"handler timeout_ms is at most {TIMEOUT_MS_MAX} (Lambda's 900 s), got {timeout_ms!r}")
    if isinstance(python_path, str):
        raise UserError(f"handler python_path is a list of folders, got the text {python_path!r}")
    folders = [str(folder) for folder in python_path]
    env = {str(key): str(value) for key, value in (environment or {}).items()}
    return {"path": path, "function": function, "timeoutMs": timeout_ms, "environment": env, "pythonPath": folders}


@attrs.frozen
class Message:
    """One message for ``sqs(...)`` with more than a body: attributes, a FIFO group, a delay."""

    body: Any
    attributes: Mapping[str, Any] = attrs.field(factory=dict)
    system_attributes: Mapping[str, str] = attrs.field(factory=dict)
    group_id: str | None = None
    deduplication_id: str | None = None
    delay_s: int | None = None
    at_ms: int | None = None

    def event(self, event_id: str) -> dict[str, Any]:
        event: dict[str, Any] = {"id": event_id, "body": self.body}
        if self.attributes:
            event["messageAttributes"] = {str(k): message_attribute(v) for k, v in self.attributes.items()}
        if self.system_attributes:
            event["attributes"] = {str(k): str(v) for k, v in self.system_attributes.items()}
        if self.group_id is not None:
            event["groupId"] = self.group_id
        if self.deduplication_id is not None:
            event["deduplicationId"] = self.deduplication_id
        if self.delay_s is not None:
            event["delaySeconds"] = self.delay_s
        if self.at_ms is not None:
            event[EVENT_TIME_FIELD] = self.at_ms
        return event


def message(
    body: Any,
    *,
    attributes: Mapping[str, Any] | None = None,
    system_attributes: Mapping[str, str] | None = None,
    group_id: str | None = None,
    deduplication_id: str | None = None,
    delay_s: int | None = None,
    at_ms: int | None = None,
) -> Message:
    """A message with message attributes (text, numbers, bytes or typed mappings), system
    attributes (``AWSTraceHeader``, ...), a FIFO ``group_id`` and ``deduplication_id``, its own
    delay, or ``at_ms``: the virtual milliseconds after the run's start at which it is sent
    (messages are sent in order of time, then of listing; none: at the start)."""
    if group_id is not None and (not isinstance(group_id, str) or not group_id):
        raise UserError(f"message group_id must be a non-empty string, got {group_id!r}")
    if deduplication_id is not None and (not isinstance(deduplication_id, str) or not deduplication_id):
        raise UserError(f"message deduplication_id must be a non-empty string, got {deduplication_id!r}")
    _check_seconds("message delay_s", delay_s, 0, DELAY_S_MAX, optional=True)
    if at_ms is not None:
        event_at_ms({"at_ms": at_ms}, "message")
    return Message(
        body=body,
        attributes=dict(attributes or {}),
        system_attributes=dict(system_attributes or {}),
        group_id=group_id,
        deduplication_id=deduplication_id,
        delay_s=delay_s,
        at_ms=at_ms,
    )


def _check_seconds(what: str, value: Any, low: int, high: int, *, optional: bool = False) -> None:
    if optional and value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise UserError(f"{what} must be a whole number of seconds from {low} to {high}, got {value!r}")


def sqs(
    name: str,
    messages: Iterable[Any],
    *,
    max_receive_count: int = MAX_RECEIVE_COUNT_DEFAULT,
    batch_size: int = BATCH_SIZE_DEFAULT,
    visibility_timeout_s: int = VISIBILITY_TIMEOUT_S_DEFAULT,
    delay_s: int = 0,
    batching_window_s: int = 0,
    report_batch_item_failures: bool = True,
    content_based_deduplication: bool = False,
) -> dict[str, Any]:
    """The sqs drive: one event per message, with ids ``msg-1``, ``msg-2``, … in order.

    A message is its body, or ``message(body, ...)`` for attributes, FIFO ids or a delay.
    The queue's settings are AWS's: ``max_receive_count`` (its redrive policy),
    ``visibility_timeout_s`` (at least the function timeout), ``delay_s``; a name ending in
    ``.fifo`` makes a FIFO queue (every message needs a group id, and a deduplication id
    unless ``content_based_deduplication``). The event source mapping's are ``batch_size``
    (Lambda's default 10), ``batching_window_s`` and ``report_batch_item_failures``.
    """
    if not isinstance(name, str) or not name:
        raise UserError(f"sqs queue name must be a non-empty string, got {name!r}")
    if not isinstance(max_receive_count, int) or max_receive_count < 1:
        raise UserError(f"sqs max_receive_count must be an integer of at least 1, got {max_receive_count!r}")
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise UserError(f"sqs batch_size must be a positive integer, got {batch_size!r}")
    _check_seconds("sqs visibility_timeout_s", visibility_timeout_s, 0, VISIBILITY_TIMEOUT_S_MAX)
    _check_seconds("sqs delay_s", delay_s, 0, DELAY_S_MAX)
    _check_seconds("sqs batching_window_s", batching_window_s, 0, BATCHING_WINDOW_S_MAX)
    drive: dict[str, Any] = {
        "kind": "sqs",
        "name": name,
        "maxReceiveCount": max_receive_count,
        "batchSize": batch_size,
        "visibilityTimeoutSeconds": visibility_timeout_s,
        "delaySeconds": delay_s,
        "maximumBatchingWindowSeconds": batching_window_s,
        "reportBatchItemFailures": bool(report_batch_item_failures),
        "fifo": name.endswith(".fifo"),
        "contentBasedDeduplication": bool(content_based_deduplication),
    }
    events, dropped = events_of(messages, QueueSettings.of(drive), f"sqs({name!r})")
    drive["events"] = events
    if dropped:
        drive["deduplicated"] = dropped
    return drive


def _pairs(value: Any, what: str) -> list[tuple[str, str]]:
    if isinstance(value, str):
        return [(value, "HASH")] if what == "key_schema" else [(value, "S")]
    if isinstance(value, Mapping):
        return [(str(name), str(kind)) for name, kind in value.items()]
    if isinstance(value, Sequence):
        pairs = []
        for entry in value:
            if not (isinstance(entry, Sequence) and not isinstance(entry, str) and len(entry) == 2):
                raise UserError(f"dynamodb_table {what} entries must be (name, type) pairs, got {entry!r}")
            pairs.append((str(entry[0]), str(entry[1])))
        return pairs
    raise UserError(f"dynamodb_table {what} must map attribute names to types, got {value!r}")


def dynamodb_table(
    name: str,
    key_schema: Mapping[str, str] | Sequence[tuple[str, str]] | str,
    attributes: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
    items: Iterable[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """A setup step: the table is deleted, re-created and seeded with ``items`` before each run.

    ``key_schema`` maps key attributes to ``HASH``/``RANGE`` (a bare name is the partition
    key); ``attributes`` gives the key attributes' types (``S``, ``N``, ``B``; ``S`` when
    not given). ``items`` are plain JSON, typed as boto3 types them.
    """
    if not isinstance(name, str) or not name:
        raise UserError(f"dynamodb_table name must be a non-empty string, got {name!r}")
    keys = _pairs(key_schema, "key_schema")
    if not keys or [kind for _, kind in keys].count("HASH") != 1:
        raise UserError(f"dynamodb_table {name}: key_schema needs exactly one HASH key, got {key_schema!r}")
    for attribute, kind in keys:
        if kind not in _KEY_TYPES:
            raise UserError(f"dynamodb_table {name}: key {attribute} has type {kind!r}; use HASH or RANGE")
    keys.sort(key=lambda pair: _KEY_TYPES.index(pair[1]))
    types = dict(_pairs(attributes, "attributes")) if attributes is not None else {}
    for attribute, kind in types.items():
        if kind not in _ATTRIBUTE_TYPES:
            raise UserError(f"dynamodb_table {name}: attribute {attribute} has type {kind!r}; use S, N or B")
    unused = sorted(set(types) - {attribute for attribute, _ in keys})
    if unused:
        raise UserError(
            f"dynamodb_table {name}: attributes {unused} are not keys; DynamoDB declares key attributes only"
        )
    seeded = [dict(item) for item in items]
    for item in seeded:
        missing = [attribute for attribute, _ in keys if attribute not in item]
        if missing:
            raise UserError(f"dynamodb_table {name}: seed item {item!r} lacks key attributes {missing}")
    return {
        "kind": "dynamodb_table",
        "name": name,
        "keySchema": [{"name": attribute, "type": kind} for attribute, kind in keys],
        "attributes": [{"name": attribute, "type": types.get(attribute, "S")} for attribute, _ in keys],
        "items": seeded,
    }


def sqs_queue(name: str, *, delay_s: int = 0, content_based_deduplication: bool = False) -> dict[str, Any]:
    """A setup step: a queue the handler sends to and nothing drives; its messages are its snapshot."""
    if not isinstance(name, str) or not name:
        raise UserError(f"sqs_queue name must be a non-empty string, got {name!r}")
    _check_seconds("sqs_queue delay_s", delay_s, 0, DELAY_S_MAX)
    return {
        "kind": "sqs_queue",
        "name": name,
        "fifo": name.endswith(".fifo"),
        "delaySeconds": delay_s,
        "contentBasedDeduplication": bool(content_based_deduplication),
    }


def s3_bucket(name: str, objects: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A setup step: a bucket on the embedded moto, emptied and seeded with ``objects`` (key -> text) before each run."""
    if not isinstance(name, str) or not name:
        raise UserError(f"s3_bucket name must be a non-empty string, got {name!r}")
    seeded = {}
    for key, body in (objects or {}).items():
        if not isinstance(body, str):
            raise UserError(f"s3_bucket {name}: seed object {key!r} must be text, got {type(body).__name__}")
        seeded[str(key)] = body
    return {"kind": "s3_bucket", "name": name, "objects": seeded}


def sns_topic(name: str) -> dict[str, Any]:
    """A setup step: an SNS topic on the embedded moto; what the run publishes is its snapshot."""
    if not isinstance(name, str) or not name:
        raise UserError(f"sns_topic name must be a non-empty string, got {name!r}")
    return {"kind": "sns_topic", "name": name}


def event_bus(name: str = "default") -> dict[str, Any]:
    """A setup step: an EventBridge bus on the embedded moto; the events put on it are its snapshot."""
    if not isinstance(name, str) or not name:
        raise UserError(f"event_bus name must be a non-empty string, got {name!r}")
    return {"kind": "event_bus", "name": name}


#: The setup steps, each made by the helper of its name.
_STEP_KINDS = ("dynamodb_table", "sqs_queue", "s3_bucket", "sns_topic", "event_bus")


def _caller_file(depth: int) -> str | None:
    frame = sys._getframe(depth + 1)  # noqa: SLF001 (the documented way to find the caller)
    source = frame.f_globals.get("__file__")
    return os.path.abspath(source) if isinstance(source, str) else None


def define_scenario(
    *,
    name: str,
    handler: Mapping[str, Any],
    drive: Mapping[str, Any],
    setup: Iterable[Mapping[str, Any]] = (),
    invariants: Iterable[Mapping[str, Any]] = (),
    bounds: Mapping[str, Any] | None = None,
    specs: Iterable[str] = (),
    dynamodb_endpoint: str | None = None,
    expect_failures: bool = False,
) -> dict[str, Any]:
    """The scenario's plain data, with ``platform: "aws"`` and the caller's root and source.

    ``dynamodb_endpoint`` names a local DynamoDB to use instead of the embedded moto, which
    answers in the handler's process; ``"moto-server"`` serves that moto from its HTTP server
    instead (``EUTAXY_DYNAMODB_ENDPOINT`` does the same from the environment). ``expect_failures``
    says the handler is meant to fail: without it a check in which no invocation returned
    normally in a fault-free run is UNSUPPORTED ``handler_never_succeeded``, not a pass.
    """
    scenario_name(name)
    if not isinstance(handler, Mapping) or "path" not in handler:
        raise UserError("define_scenario handler must come from handler('./handler.py', 'handler')")
    if not isinstance(drive, Mapping) or drive.get("kind") != "sqs":
        raise UserError(f"define_scenario drive must come from sqs(...); the AWS platform drives SQS only, got {drive!r}")
    steps = [dict(step) for step in setup]
    for step in steps:
        if step.get("kind") not in _STEP_KINDS:
            raise UserError(
                f"define_scenario setup steps come from {', '.join(f'{helper}(...)' for helper in _STEP_KINDS)}; got {step!r}"
            )
    names = [(step["kind"], step["name"]) for step in steps] + [("sqs_queue", drive.get("name"))]
    if len(set(names)) != len(names):
        raise UserError(f"define_scenario setup declares a resource twice (the driven queue counts): {sorted(map(str, names))}")
    drive_data = {**dict(drive), "events": drive_events(drive, f"sqs({drive.get('name')!r})")}
    source = _caller_file(1)
    # A scenario file that is a symlink reads its files as the file it links to does (scenario_root).
    named = [handler["path"], *(handler.get("pythonPath") or ())]
    scenario: dict[str, Any] = {
        "name": name,
        "platform": "aws",
        "root": str(scenario_root(source, named)) if source else os.getcwd(),
        "source": source,
        "handler": dict(handler),
        "setup": steps,
        "drive": drive_data,
        "invariants": scenario_invariants(invariants, drive_data),
        "bounds": scenario_bounds(bounds),
        "specs": list(specs),
    }
    if dynamodb_endpoint is not None:
        scenario["dynamodb"] = {"endpointUrl": dynamodb_endpoint}
    if expect_failures_field(expect_failures):
        scenario["expectFailures"] = True
    validate_drive(scenario["drive"], int(scenario["handler"].get("timeoutMs") or TIMEOUT_MS_DEFAULT), f"scenario {name}")
    _check_targets(scenario)
    return scenario


def _check_targets(scenario: Mapping[str, Any]) -> None:
    """Every resource an invariant names is one the scenario has: a typo would select nothing."""
    kinds = {"DynamoDB": "dynamodb_table", "SQS": "sqs_queue", "S3": "s3_bucket", "SNS": "sns_topic", "EventBridge": "event_bus"}
    declared = {(step["kind"], step["name"]) for step in scenario["setup"]} | {("sqs_queue", scenario["drive"]["name"])}
    for invariant in scenario["invariants"]:
        for part in ("selector", "query", "target"):
            target = (invariant.get(part) or {}).get("target") if isinstance(invariant.get(part), Mapping) else None
            if not isinstance(target, str) or ":" not in target or target.endswith("*"):
                continue
            prefix, _, names = target.partition(":")
            kind = kinds.get(prefix)
            if kind is None:
                continue
            missing = sorted(name for name in names.split("+") if (kind, name) not in declared)
            if missing:
                have = sorted(name for step_kind, name in declared if step_kind == kind)
                raise UserError(
                    f"invariant {invariant.get('name')!r} names {prefix} {missing[0]!r}, which the scenario does not "
                    f"declare (declared: {have}; add {kind}({missing[0]!r}) to the setup)"
                )
