"""The AWS platform: Lambda handlers on SQS with DynamoDB.

``AwsPlatform`` follows the engine's plans in the process it is made in; the engine gets it
in a process of its own (``create_platform``, ``child.HandlerProcess``), which the checker
can kill and whose memory is limited. It starts (or connects to) a local DynamoDB,
imports the handler module once (Lambda keeps a module warm across invocations, which is
why the engine's module-state check matters here), and for each run:

1. resets the scenario's tables (``tables.Tables``: deleted, re-created and seeded, or
   put back item by item from the last run's keys), with the real globals;
2. installs the virtual globals and the botocore boundary and delivers the sqs drive's
   events through the engine's run loop;
3. restores the globals and snapshots every table (``DynamoDB:<table>``, op ``items``),
   again with the real globals.

``maxConcurrentInvocations`` above 1 is not modelled yet: such a run ends UNSUPPORTED before
any event, naming the bound. The handler's output is captured per invocation (``output.py``).
A ``MemoryError`` out of the handler is the invocation's failure, as Lambda records a function
that ran out of memory (``Runtime.OutOfMemory``: the runtime process ends, the invocation
failed): its outcome is ``crashed`` with the error ``MemoryError: out_of_memory: ...`` at the
handler's line (a thread the handler could not start for want of room is the same failure,
``RuntimeError: out_of_memory: ...``), its messages come back as SQS redelivers them, and the run goes on. The limit
is the handler process's (``child``), the checker's, not the function's MemorySize. Lambda
then starts a fresh environment; here the rest of the run keeps the module's state, and the
next run starts a fresh process (``fresh_process``).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import traceback
from typing import Any, Callable, Iterator, Mapping

import attrs

from eutaxy.core.errors import UserError, error_message, error_text
from eutaxy.core.protocol import RunResult
from eutaxy.engine.bounds import PRODUCED_MESSAGES_MAX_DEFAULT
from eutaxy.engine.runloop import HandlerExit, RunLoop, plan_data, unsupported_result
from eutaxy.engine.scenario_file import no_bytecode

from eutaxy.aws.boundary import Boundary
from eutaxy.aws.child import handler_limit_mb, handler_memory, thread_out_of_memory
from eutaxy.aws.dynamodb import target_of
from eutaxy.aws.frames import UserFrames
from eutaxy.aws.local import LOCAL_REGION, LocalDynamoDB
from eutaxy.aws.output import Output
from eutaxy.aws.resources import EVENTS, MESSAGES, OBJECTS, PUBLISHED, Resources, published_rows, queue_rows, steps_of
from eutaxy.aws.selectors import SNAPSHOT_TABLE
from eutaxy.aws.services import Services
from eutaxy.aws.sqs import BATCH_SIZE_DEFAULT, TIMEOUT_MS_DEFAULT, QueueSettings, SqsQueue, deliver_queue, queue_of, validate_drive
from eutaxy.aws.tables import Tables

__all__ = ["AwsPlatform", "create_platform", "max_jobs"]

#: The environment a Lambda function sees that handler code commonly reads; the
#: credentials are placeholders, since the handler's requests are re-signed for the local
#: service and never leave the process.
_LAMBDA_ENVIRONMENT = {
    "AWS_REGION": LOCAL_REGION,
    "AWS_DEFAULT_REGION": LOCAL_REGION,
    "AWS_ACCESS_KEY_ID": "eutaxy",
    "AWS_SECRET_ACCESS_KEY": "eutaxy-local",
    "AWS_SESSION_TOKEN": "eutaxy",
    "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
    "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "128",
    "AWS_EXECUTION_ENV": "AWS_Lambda_python3.11",
}

#: Where the handler runs, as a verdict states it (``child.HandlerProcess`` states its own process).
IN_PROCESS = (
    "The handler runs in the checker's Python process; module state persists across invocations as in a warm "
    "Lambda container, and the module-state check compares replays to catch it."
)
#: What an invocation's error says first when the handler ran out of memory.
OUT_OF_MEMORY = "out_of_memory"


class HandlerOutOfMemory(HandlerExit):
    """The handler ran out of the memory its process may take: Lambda's runtime process ends
    there (``Runtime.OutOfMemory``), so the invocation crashes, this its error (``described``:
    ``MemoryError`` at the handler's line), never the checker's end or the run's."""

    def __init__(self, described: dict[str, Any]) -> None:
        BaseException.__init__(self, described["message"])
        self.code = None
        self.described = described

#: What every AWS verdict states it assumed, after where the handler runs.
ASSUMPTIONS = (
    "SQS event source semantics as AWS documents them: batches of up to batchSize visible messages, delete on "
    "success, redelivery after the visibility timeout on an error, a crash or a reported batchItemFailures entry, "
    "dead-lettering after maxReceiveCount receives; FIFO groups in order; a standard queue delivers in send order "
    "(one of the orders AWS allows).",
    "The handler is stopped at its function timeout (timeout_ms, else Lambda's 3 s) and its batch fails as "
    "Lambda's does (timed_out: not deleted, received again after the visibility timeout). Its time is the "
    "invocation's virtual time (1 ms per effect, its sleeps) plus its own code's CPU time on this machine, so a "
    "handler whose computing alone comes near the timeout may time out on one machine and not on another.",
    "Every botocore call passes BaseClient._make_request; a call made another way (raw HTTP) is not seen.",
    "Time (time, datetime) is virtual through time-machine; time.monotonic and time.perf_counter stay real.",
    "Randomness is virtual for random's module functions, os.urandom, uuid.uuid4 and secrets; "
    "names bound at import (from os import urandom) escape.",
)


def _batch_assumptions(drive: Mapping[str, Any]) -> list[str]:
    """How the sqs drive batches its messages, for the verdict's assumptions."""
    if drive.get("kind") != "sqs":
        return []
    settings = QueueSettings.of(drive)
    size = "one message at a time" if settings.batch_size == 1 else f"batches of up to {settings.batch_size} messages"
    source = f"the event source mapping's batch_size; Lambda's default is {BATCH_SIZE_DEFAULT}"
    window = (
        f"waiting up to the batching window ({settings.window_ms // 1000} s) for a fuller batch"
        if settings.window_ms
        else "each batch taking the messages visible when the poll starts"
    )
    return [f"Queue {settings.name} is delivered in {size} ({source}), {window}."]


def _plan_bound(bounds: Mapping[str, Any], name: str) -> int:
    """A bound the engine resolved into the plan (``with_bounds`` writes every one of them).

    A plan without it is Eutaxy's own bug: an internal error naming the field, never a
    default (a missing ``maxRedeliveries`` read as 0 would explore no redelivery).
    """
    value = bounds.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(
            f"plan: scenario.bounds.{name}: expected an integer (eutaxy.engine.bounds.with_bounds writes it), found {value!r}"
        )
    return value


def _plan_redeliveries(bounds: Mapping[str, Any]) -> int | None:
    """The plan's maxRedeliveries: null when the scenario sets none (maxReceiveCount alone
    decides), else a count; missing, Eutaxy's own bug as for every plan bound."""
    if "maxRedeliveries" in bounds and bounds["maxRedeliveries"] is None:
        return None
    return _plan_bound(bounds, "maxRedeliveries")


def _function_name(scenario: Mapping[str, Any]) -> str:
    return str(scenario.get("name") or "handler")


@contextlib.contextmanager
def _environment(values: Mapping[str, str]) -> Iterator[None]:
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@attrs.define(eq=False)
class AwsPlatform:
    """One scenario's runtime: the local DynamoDB, the imported handler, the boundary."""

    scenario: Mapping[str, Any]
    local: LocalDynamoDB
    boundary: Boundary
    handler: Callable[[Any, Any], Any]
    environment: dict[str, str]
    tables: Tables
    resources: Resources
    output: Output
    _sys_path_entries: list[str] = attrs.Factory(list)
    #: The handler's folder and its python_path folders: frames there are the user's code.
    folders: tuple[str, ...] = ()
    #: The scenario's folder: where an uncaught error was raised is told relative to it.
    root: str = ""
    #: Where the handler runs, the verdict's first assumption.
    process: str = IN_PROCESS
    #: Which frames are the handler's: where an effect's call and an uncaught error are placed.
    frames: UserFrames = attrs.field(default=attrs.Factory(lambda self: UserFrames(self.folders, self.root), takes_self=True))
    #: The handler ran out of memory in the last run: its process is best replaced before the next
    #: (Lambda starts a fresh environment after ``Runtime.OutOfMemory``; ``child`` does it).
    fresh_process: bool = False
    _closed: bool = False

    @classmethod
    def start(cls, scenario: Mapping[str, Any]) -> "AwsPlatform":
        _validate(scenario)
        spec = scenario["handler"]
        environment = {
            **_LAMBDA_ENVIRONMENT,
            "AWS_LAMBDA_FUNCTION_NAME": _function_name(scenario),
            "AWS_LAMBDA_FUNCTION_TIMEOUT": str(-(-int(spec.get("timeoutMs") or TIMEOUT_MS_DEFAULT) // 1000)),
            **dict(spec.get("environment") or {}),
        }
        root = str(scenario.get("root") or os.getcwd())
        path = os.path.normpath(os.path.join(root, spec["path"]))
        # Lambda puts the task root first on sys.path, then the layers' folders.
        entries = [os.path.dirname(path), *(os.path.normpath(os.path.join(root, p)) for p in spec.get("pythonPath") or ())]
        for entry in entries:
            if not os.path.isdir(entry):
                raise UserError(f"handler python_path folder {entry} does not exist (paths are relative to the scenario)")
        output = Output()
        local = LocalDynamoDB.start(scenario)
        boundary = Boundary(local=local)
        added = [entry for entry in entries if entry not in sys.path]
        sys.path[:0] = added
        try:
            with _environment(environment), output.installed(), boundary.installed(None), handler_memory():
                handler = _load_handler(path, spec.get("function") or "handler", entries)
        except BaseException:
            _remove_entries(added)
            local.close()
            raise
        return cls(
            scenario=scenario,
            local=local,
            boundary=boundary,
            handler=handler,
            environment=environment,
            tables=Tables(client=local.client, store=local.in_process),
            resources=Resources(local=local),
            output=output,
            sys_path_entries=added,
            folders=tuple(entries),
            root=root,
        )

    @property
    def source_root(self) -> str:
        """The folder the effects' sources and errors' lines are relative to: the scenario's."""
        return self.root

    # --- the Platform interface --------------------------------------------------------

    def run(self, plan: Any) -> RunResult:
        assert not self._closed, "run() after close()"
        data = plan_data(plan)
        scenario = data["scenario"]
        bounds = scenario.get("bounds") or {}
        drive = scenario["drive"]
        concurrency = _plan_bound(bounds, "maxConcurrentInvocations")
        if concurrency > 1:
            return unsupported_result(
                "concurrency_not_supported",
                f"maxConcurrentInvocations is {concurrency}; the AWS platform runs one invocation at a time "
                f"(set it to 1)",
            )
        if scenario["handler"].get("path") != self.scenario["handler"].get("path"):
            raise UserError("a plan's scenario names another handler than the platform was created for")
        setup = list(scenario.get("setup") or ())
        tables = steps_of(setup, "dynamodb_table")
        loop = RunLoop.from_plan(data)
        loop.call_site = self.frames.call_site
        self.tables.reset(tables)
        self.resources.reset(setup)
        # None (the plan carries null): the scenario sets no bound, and maxReceiveCount alone decides, as on AWS.
        max_redeliveries = _plan_redeliveries(bounds)
        timeout_ms = int(scenario["handler"].get("timeoutMs") or TIMEOUT_MS_DEFAULT)
        where = f"scenario {scenario.get('name')}"
        driven = queue_of(drive, loop.now_ms, where)
        declared = {step["name"]: SqsQueue(settings=QueueSettings.of(step)) for step in steps_of(setup, "sqs_queue")}
        services = Services(
            local=self.local,
            queues={**declared, driven.settings.name: driven},
            sent_max=int(bounds.get("producedMessagesMax", PRODUCED_MESSAGES_MAX_DEFAULT)),
        )

        def deliver(running: RunLoop) -> None:
            deliver_queue(
                running,
                driven,
                max_redeliveries=max_redeliveries,
                handler=self._memory_guarded(running),
                seed=str(data.get("seed", "")),
                function_name=_function_name(scenario),
                timeout_ms=timeout_ms,
                call=self.output.call,
                # Output goes into replayed runs (a violation's trace, a regression test), not
                # into exploration runs: a line that differs from run to run without changing
                # what the handler does (a cold-start flag, an address) is no module state.
                record_output=(data.get("policy") or {}).get("kind") == "replay",
                error_of=self._uncaught,
            )

        with _environment(self.environment), self.output.installed(), self.boundary.installed(loop, services):
            loop.run(deliver)
        if loop.end.get("kind") != "completed":
            self.tables.forget()
            return loop.result()
        for name, rows in self.tables.snapshot(tables).items():
            loop.record_snapshot(target_of([name]), SNAPSHOT_TABLE, rows)
        for name, queue in declared.items():
            loop.record_snapshot(f"SQS:{name}", MESSAGES, queue_rows(queue))
        for step in steps_of(setup, "s3_bucket"):
            loop.record_snapshot(f"S3:{step['name']}", OBJECTS, self.resources.bucket_rows(step["name"]))
        for step in steps_of(setup, "sns_topic"):
            target = f"SNS:{step['name']}"
            loop.record_snapshot(target, PUBLISHED, published_rows(loop.effects, target, "Publish"))
        for step in steps_of(setup, "event_bus"):
            target = f"EventBridge:{step['name']}"
            loop.record_snapshot(target, EVENTS, published_rows(loop.effects, target, "PutEvents"))
        return loop.result()

    def _memory_guarded(self, loop: RunLoop) -> Callable[[Any, Any], Any]:
        """The handler under the handler's memory limit (``child.handler_memory``), running out of it (a
        MemoryError, a thread it had no room to start) turned into the invocation's crash (``HandlerOutOfMemory``)."""
        handler = self.handler

        def guarded(event: Any, context: Any) -> Any:
            try:
                with handler_memory():
                    return handler(event, context)
            except (MemoryError, RuntimeError) as error:
                if not isinstance(error, MemoryError) and not thread_out_of_memory(error, handler_limit_mb()):
                    raise
                where = self.frames.raised_at(error)
                self.fresh_process = True
                ran_out = "" if isinstance(error, MemoryError) else f" ({error}: no room for a thread's stack)"
                described: dict[str, Any] = {
                    "name": type(error).__name__,
                    "message": f"{OUT_OF_MEMORY}: the invocation ran out of memory{ran_out}: {_memory_limit_text()}; "
                    "Lambda ends such an invocation as failed (Runtime.OutOfMemory)",
                }
                if where is not None:
                    described["at"] = where.text()
            # Raised out here, so the error's frames (and what they hold) are let go first.
            raise HandlerOutOfMemory(described)

        return guarded

    def _uncaught(self, error: BaseException) -> dict[str, Any]:
        """A handler's uncaught error: its type, its message, and the innermost frame of the user's code.

        The frame is told relative to the scenario's folder (``handler.py:7``), so no path
        of this machine reaches a report.
        """
        if isinstance(error, HandlerOutOfMemory):
            return dict(error.described)
        described: dict[str, Any] = {"name": type(error).__name__, "message": error_message(error)}
        source = self.frames.raised_at(error)
        if source is not None:
            described["at"] = source.text()
        return described

    def describe(self) -> dict:
        return {
            "platform": "aws",
            "dynamodb": self.local.description,
            "assumptions": [
                self.process,
                *ASSUMPTIONS,
                *_batch_assumptions(self.scenario.get("drive") or {}),
                f"DynamoDB semantics are those of {self.local.description}.",
            ],
        }

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        _remove_entries(self._sys_path_entries)
        self.local.close()

    def __enter__(self) -> "AwsPlatform":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


def _memory_limit_text() -> str:
    """The memory the handler's process may take, as an out-of-memory detail says it."""
    limit = handler_limit_mb()
    if limit is None:
        return "its process has no address-space limit"
    return (
        f"its process is limited to {limit} MiB of address space (the checker's limit, "
        "EUTAXY_HANDLER_MEMORY_MB, not the function's MemorySize)"
    )


def _validate(scenario: Mapping[str, Any]) -> None:
    if scenario.get("platform") != "aws":
        raise UserError(f"scenario {scenario.get('name')!r} is for platform {scenario.get('platform')!r}, not aws")
    spec = scenario.get("handler")
    if not isinstance(spec, Mapping) or not isinstance(spec.get("path"), str):
        raise UserError("the scenario has no handler; build it with eutaxy.aws.handler('./handler.py', 'handler')")
    drive = scenario.get("drive") or {}
    if drive.get("kind") != "sqs":
        raise UserError(f"the AWS platform drives an sqs queue; the scenario's drive is {drive.get('kind')!r}")
    validate_drive(drive, int(spec.get("timeoutMs") or TIMEOUT_MS_DEFAULT), f"scenario {scenario.get('name')}")


def _remove_entries(entries: list[str]) -> None:
    for entry in entries:
        if entry in sys.path:
            sys.path.remove(entry)


def _load_handler(path: str, function: str, folders: list[str]) -> Callable[[Any, Any], Any]:
    """Import the handler module as Lambda does: under its file's stem, fresh.

    A fresh module per platform, as a fresh Lambda container would import it: the handler
    modules and their siblings (modules from a handler's own folder) that an earlier
    platform imported are forgotten first, so two checks share no module state, and two
    handlers' siblings of one name never mix.
    A module that fails to import is the user's error: its own error, file and line.
    """
    if not os.path.isfile(path):
        raise UserError(f"the handler module {path} does not exist; handler() paths are relative to the scenario")
    name = os.path.basename(path)[: -len(".py")]
    folder = os.path.dirname(path)
    _forget_handler_modules()
    if name in sys.modules:
        raise UserError(
            f"the handler module {path} is imported as {name!r}, as Lambda imports it, but that name is "
            f"{getattr(sys.modules[name], '__file__', None) or 'a built-in module'} here; rename the handler file"
        )
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    before = set(sys.modules)
    sys.modules[name] = module
    try:
        # Checking a handler writes nothing beside it (no __pycache__), as reading a scenario does not.
        with no_bytecode():
            spec.loader.exec_module(module)
    except (UserError, KeyboardInterrupt):
        sys.modules.pop(name, None)
        raise
    except BaseException as error:  # whatever the module raised is the user's
        sys.modules.pop(name, None)
        raise UserError(_import_failure(path, error, folders)) from error
    finally:
        _HANDLER_MODULES.update(key for key in set(sys.modules) - before if _is_under(sys.modules[key], folder))
    target = getattr(module, function, None)
    if not callable(target):
        raise UserError(f"{path} has no function {function!r} to use as the handler")
    return target


#: Names of modules imported from a handler's folder (the handler and its siblings) by any
#: platform in this process; the next platform imports them afresh.
_HANDLER_MODULES: set[str] = set()


def _within(filename: str, folder: str) -> bool:
    # A frozen or generated module's "filename" (``<frozen os>``) is no path: made absolute,
    # it would land in the working directory, often the handler's own folder.
    return os.path.isabs(filename) and os.path.normpath(filename).startswith(os.path.join(folder, ""))


def _is_under(module: Any, folder: str) -> bool:
    source = getattr(module, "__file__", None)
    return isinstance(source, str) and _within(source, folder)


def _forget_handler_modules() -> None:
    for key in _HANDLER_MODULES:
        sys.modules.pop(key, None)
    _HANDLER_MODULES.clear()


def _import_failure(path: str, error: BaseException, folders: list[str]) -> str:
    """``<file>:<line>: <Error>: <message>`` where the user's code raised it, and what to do."""
    where = path
    if isinstance(error, SyntaxError) and error.filename:
        where = f"{error.filename}:{error.lineno}"
    else:
        frames = traceback.extract_tb(error.__traceback__)
        inside = [frame for frame in frames if any(_within(frame.filename, folder) for folder in folders)]
        frame = (inside or frames or [None])[-1]
        if frame is not None:
            where = f"{frame.filename}:{frame.lineno}"
    text = f"the handler module {path} failed to import: {where}: {error_text(error)}"
    if isinstance(error, ImportError):
        text += "; give the handler its dependencies with handler(..., python_path=['./vendor']) (a folder of packages)"
    elif isinstance(error, KeyError):
        text += "; set the variables the module reads with handler(..., environment={...})"
    return text


def create_platform(scenario: Mapping[str, Any]) -> Any:
    """The Platform for an AWS scenario (the engine's ``check_scenario`` drives it): ``AwsPlatform`` in a
    process of its own, which the checker can kill, with its memory limited (``child.HandlerProcess``)."""
    from eutaxy.aws.child import HandlerProcess

    return HandlerProcess.start(scenario)


def max_jobs(scenario: Mapping[str, Any]) -> int | None:
    """How many platform instances a check of ``scenario`` may run at once (``eutaxy check --jobs``):
    one when it names a DynamoDB endpoint of its own, whose tables every instance's reset would
    delete; no cap otherwise, since each instance starts its own local DynamoDB."""
    from eutaxy.aws.local import _endpoint_from

    return 1 if _endpoint_from(scenario) is not None else None
