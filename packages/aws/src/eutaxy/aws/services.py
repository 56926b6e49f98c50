"""AWS services beyond DynamoDB, through the same boundary: SQS sends, S3, SNS, EventBridge.

A call of these services is caught before botocore serializes it (``_make_api_call``), with
the operation's parameters as the handler passed them. Each modelled operation is one effect
point with the write or read ladder, as a DynamoDB call is:

- SQS ``SendMessage``/``SendMessageBatch``/``GetQueueUrl`` on a queue the scenario declares
  (the driven queue, or ``sqs_queue(...)``): the message goes into the run's own queue model
  (``sqs.SqsQueue``), so a message onto the driven queue is delivered later in the run, FIFO
  deduplication applies in virtual time, and a declared queue's messages are its snapshot;
- S3 ``PutObject``/``GetObject``/``HeadObject``/``DeleteObject``/``ListObjectsV2``/
  ``ListObjects``, SNS ``Publish`` and EventBridge ``PutEvents`` go to the embedded moto
  server's own implementation of the service, through the platform's client of it.

Anything else is UNSUPPORTED naming the service, the operation and the invocation.
"""

from __future__ import annotations

import hashlib
import io
import json
from typing import Any, Callable, Mapping, NoReturn

import attrs
from botocore.exceptions import ClientError, ReadTimeoutError
from botocore.response import StreamingBody

from eutaxy.core import values
from eutaxy.core.errors import UserError
from eutaxy.core.faults import AMBIGUOUS, ERROR, READ_FAULTS, WRITE_FAULTS
from eutaxy.engine.bounds import PRODUCED_MESSAGES_MAX_DEFAULT
from eutaxy.engine.runloop import RunLoop

from eutaxy.aws.dynamodb import READ, WRITE
from eutaxy.aws.sqs import SqsQueue, attributes_md5, message_attribute, queue_url

__all__ = ["MODELLED", "Services", "fault_answer", "simulated_endpoint", "target_of_call"]

#: The operations modelled per service, each a write or a read.
MODELLED: dict[str, dict[str, str]] = {
    "sqs": {"SendMessage": WRITE, "SendMessageBatch": WRITE, "GetQueueUrl": READ},
    "s3": {
        "PutObject": WRITE,
        "DeleteObject": WRITE,
        "GetObject": READ,
        "HeadObject": READ,
        "ListObjectsV2": READ,
        "ListObjects": READ,
    },
    "sns": {"Publish": WRITE},
    "events": {"PutEvents": WRITE},
}
#: Target prefixes per service.
PREFIX = {"sqs": "SQS", "s3": "S3", "sns": "SNS", "events": "EventBridge"}
#: Response fields the local service fills from its own randomness or clock.
_UNSTABLE = frozenset({"MessageId", "ResponseMetadata", "LastModified", "EventId", "VersionId", "Expiration"})


def target_of_call(service: str, op: str, params: Mapping[str, Any]) -> str:
    """``S3:<bucket>``, ``SQS:<queue>``, ``SNS:<topic>``, ``EventBridge:<bus>`` (several joined with +)."""
    if service == "s3":
        name = str(params.get("Bucket", ""))
    elif service == "sqs":
        name = "+".join(sorted({_queue_name(params)}))
    elif service == "sns":
        name = str(params.get("TopicArn") or params.get("TargetArn") or params.get("PhoneNumber") or "").rsplit(":", 1)[-1]
    else:
        buses = {str(entry.get("EventBusName") or "default").rsplit("/", 1)[-1] for entry in params.get("Entries") or ()}
        name = "+".join(sorted(buses))
    return f"{PREFIX[service]}:{name}"


def _queue_name(params: Mapping[str, Any]) -> str:
    if "QueueName" in params:
        return str(params["QueueName"])
    return str(params.get("QueueUrl", "")).rstrip("/").rsplit("/", 1)[-1]


def parsed_body(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _bytes_of(body: Any) -> bytes:
    if body is None:
        return b""
    if isinstance(body, str):
        return body.encode("utf-8")
    if isinstance(body, (bytes, bytearray)):
        return bytes(body)
    if hasattr(body, "read"):
        return body.read()
    raise TypeError(f"an S3 body of type {type(body).__name__}")


def body_plain(data: bytes) -> dict[str, Any]:
    """An object's body as the log shows it: ``{"body": text}`` when it is UTF-8, else the
    bytes in the log's value encoding (``eutaxy.core.values.text_or_bytes``)."""
    return {"body": values.text_or_bytes(data)}


def plain(value: Any) -> Any:
    """A request or response as plain JSON, without the service's own ids and clock."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items() if k not in _UNSTABLE}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return values.encode(value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


@attrs.define(eq=False)
class Services:
    """One run's view of the other services: the queues it models and the moto clients."""

    local: Any
    queues: dict[str, SqsQueue]
    #: The most messages the run's handler may send (the plan's ``bounds.producedMessagesMax``);
    #: a send beyond it makes the run UNSUPPORTED (produced_message_limit).
    sent_max: int = PRODUCED_MESSAGES_MAX_DEFAULT
    #: Messages the run's handler sent, for their ids (``sent-1``, ...).
    _sent: int = 0

    def call(self, loop: RunLoop, client: Any, op: str, params: dict[str, Any]) -> Any:
        service = client.meta.service_model.service_name
        access = MODELLED.get(service, {}).get(op)
        invocation = loop.current.id if loop.current is not None else "no invocation"
        if access is None:
            raise loop.unsupported(
                "client_not_supported",
                f"{invocation} called {client.meta.service_model.service_id} {op}; modelled are DynamoDB item calls, "
                f"SQS SendMessage/SendMessageBatch/GetQueueUrl, S3 object calls, SNS Publish and EventBridge PutEvents",
            )
        target = target_of_call(service, op, params)
        if service == "sqs":
            perform = self._sqs(loop, op, params, target, invocation)
        else:
            if not self.local.embedded:
                raise loop.unsupported(
                    "service_not_available",
                    f"{invocation} called {service} {op}; only the embedded moto serves services beyond "
                    f"DynamoDB (the scenario names the DynamoDB at {self.local.endpoint_url})",
                )
            perform = self._moto(loop, client, service, op, params)
        fault, answer = loop.effect_point(target, op, _args(service, op, params), _ladder(access), perform)
        if fault is not None:
            fault_answer(service, op, fault)
        if isinstance(answer, ClientError):
            raise answer
        return answer

    # --- SQS: the run's own queues ------------------------------------------------------

    def _sqs(self, loop: RunLoop, op: str, params: Mapping[str, Any], target: str, invocation: str) -> Callable:
        name = _queue_name(params)
        queue = self.queues.get(name)
        if queue is None:
            raise loop.unsupported(
                "client_not_supported",
                f"{invocation} called SQS {op} on queue {name!r}, which the scenario does not declare "
                f"(add sqs_queue({name!r}) to its setup, or drive it)",
            )
        if op == "GetQueueUrl":
            return lambda: ({"ok": True, "QueueUrl": queue_url(name)}, {"QueueUrl": queue_url(name)})
        entries = [dict(params)] if op == "SendMessage" else [dict(entry) for entry in params.get("Entries") or ()]
        if self._sent + len(entries) > self.sent_max:
            raise loop.unsupported(
                "produced_message_limit",
                f"{invocation} sent message {self._sent + len(entries)} of the run (SQS {op} to {name}), beyond "
                f"bounds.producedMessagesMax ({self.sent_max}); raise the bound, or check fewer events",
            )

        def perform() -> tuple[Any, Any]:
            results, answers = [], []
            for entry in entries:
                result, answer = self._send(loop, queue, entry)
                results.append(result)
                answers.append(answer)
            if op == "SendMessage":
                return results[0], answers[0]
            successful = [dict(a, Id=e.get("Id")) for e, a in zip(entries, answers) if not isinstance(a, ClientError)]
            failed = [
                {"Id": e.get("Id"), "SenderFault": True, "Code": a.response["Error"]["Code"], "Message": str(a)}
                for e, a in zip(entries, answers)
                if isinstance(a, ClientError)
            ]
            return {"ok": True, "entries": results}, {"Successful": successful, "Failed": failed}

        return perform

    def _send(self, loop: RunLoop, queue: SqsQueue, entry: Mapping[str, Any]) -> tuple[dict[str, Any], Any]:
        settings = queue.settings
        text = str(entry.get("MessageBody", ""))
        if settings.fifo and not entry.get("MessageGroupId"):
            return _sqs_error("MissingParameter", "The request must contain the parameter MessageGroupId.")
        if settings.fifo and not entry.get("MessageDeduplicationId") and not settings.content_deduplication:
            return _sqs_error(
                "InvalidParameterValue",
                "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly",
            )
        if settings.fifo and "DelaySeconds" in entry:
            return _sqs_error("InvalidParameterValue", "FIFO queues do not support per-message DelaySeconds")
        self._sent += 1
        event: dict[str, Any] = {"id": f"sent-{self._sent}", "body": text}
        if entry.get("MessageAttributes"):
            event["messageAttributes"] = {str(k): message_attribute(v) for k, v in entry["MessageAttributes"].items()}
        if entry.get("MessageGroupId"):
            event["groupId"] = str(entry["MessageGroupId"])
        if entry.get("MessageDeduplicationId"):
            event["deduplicationId"] = str(entry["MessageDeduplicationId"])
        if "DelaySeconds" in entry:
            event["delaySeconds"] = int(entry["DelaySeconds"])
        message, _ = queue.send(event, loop.now_ms, where=f"SendMessage to {settings.name}")
        answer: dict[str, Any] = {
            "MessageId": event["id"],
            "MD5OfMessageBody": hashlib.md5(text.encode("utf-8")).hexdigest(),  # noqa: S324 (SQS's own digest)
        }
        md5 = attributes_md5(event.get("messageAttributes") or {})
        if md5 is not None:
            answer["MD5OfMessageAttributes"] = md5
        if message is not None and settings.fifo:
            answer["SequenceNumber"] = str(10**19 + message.sequence)
        return {"ok": True, "messageId": event["id"], "deduplicated": message is None}, answer

    # --- S3, SNS, EventBridge: moto's implementations ----------------------------------

    def _moto(self, loop: RunLoop, client: Any, service: str, op: str, params: Mapping[str, Any]) -> Callable:
        local = self.local.client_for(service)
        method = getattr(local, _method_name(client, op))

        def perform() -> tuple[Any, Any]:
            sent = dict(params)
            if service == "s3" and op == "PutObject":
                sent["Body"] = _bytes_of(sent.get("Body"))
            try:
                response = method(**sent)
            except ClientError as error:
                code = error.response.get("Error", {}).get("Code")
                raised = client.exceptions.from_code(code)(error.response, op)
                return {"ok": False, "error": {"code": code, "message": error.response.get("Error", {}).get("Message")}}, raised
            except Exception as error:  # the local service, not the handler, failed
                raise loop.unsupported(
                    "dynamodb_unavailable",
                    f"{service} {op} failed at the embedded moto (which serves DynamoDB too): "
                    f"{type(error).__name__}: {error}",
                ) from error
            result: dict[str, Any] = {"ok": True}
            if service == "s3" and op == "GetObject":
                data = response["Body"].read()
                response = dict(response, Body=StreamingBody(io.BytesIO(data), len(data)))
                result.update(body_plain(data))
            result.update(plain({k: v for k, v in response.items() if k != "Body"}))
            return result, response

        return perform


def _method_name(client: Any, op: str) -> str:
    for method, name in client.meta.method_to_api_mapping.items():
        if name == op:
            return method
    raise UserError(f"botocore has no method for {op}")  # pragma: no cover (MODELLED names real operations)


def _sqs_error(code: str, message: str) -> tuple[dict[str, Any], ClientError]:
    response = {"Error": {"Code": code, "Message": message}, "ResponseMetadata": {"HTTPStatusCode": 400}}
    return {"ok": False, "error": {"code": code, "message": message}}, ClientError(response, "SendMessage")


def _args(service: str, op: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The call's parameters as plain JSON; an SQS body also parsed, so keys can read into it."""
    args = {str(k): v for k, v in params.items() if k != "Body"}
    if service == "s3" and "Body" in params:
        body = params["Body"]
        if isinstance(body, (str, bytes, bytearray)):
            args.update(body_plain(_bytes_of(body)))
    if service == "sqs":
        if "MessageBody" in params:
            args["body"] = parsed_body(str(params["MessageBody"]))
        if "Entries" in args:
            args["Entries"] = [
                dict(entry, body=parsed_body(str(entry.get("MessageBody", "")))) for entry in args["Entries"]
            ]
    if service == "sns" and "Message" in params:
        args["body"] = parsed_body(str(params["Message"]))
    if service == "events":
        args["Entries"] = [
            dict(entry, detail=parsed_body(str(entry.get("Detail", "")))) for entry in params.get("Entries") or ()
        ]
    return plain(args)


def _ladder(access: str) -> tuple[str, ...]:
    return WRITE_FAULTS if access == WRITE else READ_FAULTS


def fault_answer(service: str, op: str, fault: str) -> NoReturn:
    """What the caller sees for an injected ``error`` (a 500) or ``ambiguous`` (a timeout)."""
    if fault == AMBIGUOUS:
        raise ReadTimeoutError(endpoint_url=simulated_endpoint(service))
    assert fault == ERROR, fault
    response = {
        "Error": {"Code": "InternalError", "Message": f"Eutaxy injected an error into {op}"},
        "ResponseMetadata": {"HTTPStatusCode": 500, "HTTPHeaders": {}, "RetryAttempts": 0},
    }
    raise ClientError(response, op)


def simulated_endpoint(service: str) -> str:
    """The endpoint an injected fault names: never a real one (``.invalid`` is reserved), and the
    same in every run, unlike the local service's port."""
    return f"https://{service}.simulated.invalid/"


