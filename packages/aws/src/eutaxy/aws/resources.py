"""The scenario's resources beyond DynamoDB tables: reset before each run, read after it.

S3 buckets, SNS topics and EventBridge buses live on the embedded moto (in process, or its server) and are
reset there with the real globals, through the platform's own clients: a bucket is emptied
and seeded with its objects; topics and buses are created once. After the run each bucket's
objects are its snapshot (``S3:<bucket>`` op ``objects``: ``{key, body}``, the body
its text when it is UTF-8, else ``{"$": "bytes", "v": base64}``). What a topic or a bus received is in the effect log already; its
snapshot (``SNS:<topic>`` op ``published``, ``EventBridge:<bus>`` op ``events``) lists the
messages and events of the run's successful calls, in order. A declared queue's snapshot
(``SQS:<queue>`` op ``messages``) is the messages it holds at the end.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import attrs

from eutaxy.core.effects import RESULT, Effect
from eutaxy.core.errors import UserError

from eutaxy.aws.services import body_plain, parsed_body
from eutaxy.aws.sqs import SqsQueue

__all__ = ["EVENTS", "MESSAGES", "OBJECTS", "PUBLISHED", "Resources", "published_rows", "queue_rows", "steps_of"]

OBJECTS = "objects"
PUBLISHED = "published"
EVENTS = "events"
MESSAGES = "messages"
#: Setup kinds that need the embedded moto.
MOTO_KINDS = ("s3_bucket", "sns_topic", "event_bus")


def steps_of(setup: Iterable[Mapping[str, Any]], kind: str) -> list[Mapping[str, Any]]:
    return [step for step in setup or () if step.get("kind") == kind]


@attrs.define(eq=False)
class Resources:
    """Buckets, topics and buses on the embedded moto, through the platform's clients."""

    local: Any
    _created: set[tuple[str, str]] = attrs.Factory(set)

    def reset(self, setup: Sequence[Mapping[str, Any]]) -> None:
        steps = [step for step in setup if step.get("kind") in MOTO_KINDS]
        if steps and not self.local.embedded:
            raise UserError(
                f"the setup declares {steps[0]['kind']} {steps[0]['name']!r}, which only the embedded moto "
                f"serves; unset the DynamoDB endpoint to use it"
            )
        for step in steps:
            key = (step["kind"], step["name"])
            if step["kind"] == "s3_bucket":
                self._reset_bucket(step, key not in self._created)
            elif key not in self._created and step["kind"] == "sns_topic":
                self.local.client_for("sns").create_topic(Name=step["name"])
            elif key not in self._created and step["kind"] == "event_bus" and step["name"] != "default":
                self.local.client_for("events").create_event_bus(Name=step["name"])
            self._created.add(key)

    def _reset_bucket(self, step: Mapping[str, Any], first: bool) -> None:
        s3 = self.local.client_for("s3")
        name = step["name"]
        if first:
            try:
                s3.create_bucket(Bucket=name)
            except s3.exceptions.BucketAlreadyOwnedByYou:
                pass
        keys = [entry["Key"] for entry in self._list(name)]
        if keys:
            s3.delete_objects(Bucket=name, Delete={"Objects": [{"Key": key} for key in keys], "Quiet": True})
        for key, body in step.get("objects", {}).items():
            s3.put_object(Bucket=name, Key=key, Body=body.encode("utf-8"))

    def _list(self, bucket: str) -> list[dict[str, Any]]:
        s3 = self.local.client_for("s3")
        entries: list[dict[str, Any]] = []
        token = None
        while True:
            page = s3.list_objects_v2(Bucket=bucket, **({"ContinuationToken": token} if token else {}))
            entries.extend(page.get("Contents") or ())
            token = page.get("NextContinuationToken")
            if not token:
                return entries

    def bucket_rows(self, bucket: str) -> list[dict[str, Any]]:
        s3 = self.local.client_for("s3")
        rows = []
        for entry in self._list(bucket):
            data = s3.get_object(Bucket=bucket, Key=entry["Key"])["Body"].read()
            rows.append({"key": entry["Key"], **body_plain(data)})
        return rows


def published_rows(effects: Sequence[Effect], target: str, op: str) -> list[Any]:
    """What the run's successful ``op`` calls on ``target`` sent: SNS messages, EventBridge entries."""
    rows: list[Any] = []
    for effect in effects:
        if effect.target != target or effect.op != op or effect.kind != RESULT:
            continue
        payload = effect.payload or {}
        if not (payload.get("result") or {}).get("ok"):
            continue
        args = payload.get("args") or {}
        if op == "Publish":
            rows.append({key: args[key] for key in ("body", "Subject", "MessageAttributes", "MessageGroupId") if key in args})
        else:
            rows.extend(args.get("Entries") or ())
    return rows


def queue_rows(queue: SqsQueue) -> list[dict[str, Any]]:
    """The messages a declared queue holds at the end of the run."""
    rows = []
    for message in queue.pending:
        row: dict[str, Any] = {"messageId": message.id, "body": parsed_body(str(message.event.get("body", "")))}
        for key in ("groupId", "deduplicationId"):
            if key in message.event:
                row[key] = message.event[key]
        rows.append(row)
    return rows
