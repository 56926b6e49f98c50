"""The AWS platform: Lambda handlers on SQS with DynamoDB, run in this process.

``AwsPlatform`` follows the engine's plans. It starts (or connects to) a local DynamoDB,
imports the handler module once (Lambda keeps a module warm across invocations, which is
why the engine's module-state check matters here), and for each run:

1. resets the scenario's tables (``tables.Tables``: deleted, re-created and seeded, or
   put back item by item from the last run's keys), with the real globals;
2. installs the virtual globals and the botocore boundary and delivers the sqs drive's
   events through the engine's run loop;
3. restores the globals and snapshots every table (``DynamoDB:<table>``, op ``items``),
   again with the real globals.

``maxConcurrentInvocations`` above 1 and ``batchSize`` above 1 are not modelled yet: such a
run ends UNSUPPORTED before any event, naming the bound.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import sys
from typing import Any, Callable, Iterator, Mapping

import attrs

from eutaxy.core.errors import UserError
from eutaxy.core.protocol import RunResult
from eutaxy.engine.runloop import RunLoop, plan_data, unsupported_result

from eutaxy.aws.boundary import Boundary
from eutaxy.aws.dynamodb import target_of
from eutaxy.aws.local import LOCAL_REGION, LocalDynamoDB
from eutaxy.aws.selectors import SNAPSHOT_TABLE
from eutaxy.aws.sqs import DEFAULT_TIMEOUT_MS, deliver_queue
from eutaxy.aws.tables import Tables

__all__ = ["AwsPlatform", "create_platform"]

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

#: What every AWS verdict states it assumed.
ASSUMPTIONS = (
    "The handler runs in the checker's Python process; module state persists across invocations as in a warm "
    "Lambda container, and the module-state check compares replays to catch it.",
    "SQS event source semantics as AWS documents them: one record per invocation (batchSize 1), delete on success, "
    "redelivery on an error or a reported batchItemFailures entry (ReportBatchItemFailures enabled), "
    "dead-lettering after maxReceiveCount receives.",
    "Every botocore call passes BaseClient._make_request; a call made another way (raw HTTP) is not seen.",
    "Time (time, datetime) is virtual through time-machine; time.monotonic and time.perf_counter stay real.",
    "Randomness is virtual for random's module functions, os.urandom, uuid.uuid4 and secrets; "
    "names bound at import (from os import urandom) escape.",
)


def _function_name(scenario: Mapping[str, Any]) -> str:
    return str(scenario.get("name") or "handler")


def _module_name(path: str) -> str:
    digest = hashlib.sha256(path.encode("utf-8")).hexdigest()[:16]
    return f"eutaxy_aws_handler_{digest}"


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
    _sys_path_entry: str | None = None
    _closed: bool = False

    @classmethod
    def start(cls, scenario: Mapping[str, Any]) -> "AwsPlatform":
        _validate(scenario)
        local = LocalDynamoDB.start(scenario)
        boundary = Boundary(local=local)
        spec = scenario["handler"]
        environment = {
            **_LAMBDA_ENVIRONMENT,
            "AWS_LAMBDA_FUNCTION_NAME": _function_name(scenario),
            **dict(spec.get("environment") or {}),
        }
        root = str(scenario.get("root") or os.getcwd())
        path = os.path.normpath(os.path.join(root, spec["path"]))
        directory = os.path.dirname(path)
        added = None
        if directory not in sys.path:
            # Lambda puts the task root on sys.path, so a handler imports its siblings.
            sys.path.insert(0, directory)
            added = directory
        try:
            with _environment(environment), boundary.installed(None):
                handler = _load_handler(path, spec.get("function") or "handler")
        except BaseException:
            if added is not None:
                sys.path.remove(added)
            local.close()
            raise
        return cls(
            scenario=scenario,
            local=local,
            boundary=boundary,
            handler=handler,
            environment=environment,
            tables=Tables(client=local.client),
            sys_path_entry=added,
        )

    # --- the Platform interface --------------------------------------------------------

    def run(self, plan: Any) -> RunResult:
        assert not self._closed, "run() after close()"
        data = plan_data(plan)
        scenario = data["scenario"]
        bounds = scenario.get("bounds") or {}
        drive = scenario["drive"]
        concurrency = int(bounds.get("maxConcurrentInvocations", 1))
        if concurrency > 1:
            return unsupported_result(
                "concurrency_not_supported",
                f"maxConcurrentInvocations is {concurrency}; the AWS platform runs one invocation at a time "
                f"(set it to 1)",
            )
        batch_size = int(drive.get("batchSize", 1))
        if batch_size != 1:
            return unsupported_result(
                "batch_size_not_supported",
                f"the sqs drive's batchSize is {batch_size}; the AWS platform delivers one record per invocation",
            )
        if scenario["handler"].get("path") != self.scenario["handler"].get("path"):
            raise UserError("a plan's scenario names another handler than the platform was created for")
        tables = [step for step in scenario.get("setup") or () if step.get("kind") == "dynamodb_table"]
        loop = RunLoop.from_plan(data)
        self.tables.reset(tables)
        max_redeliveries = int(bounds.get("maxRedeliveries", 0))
        timeout_ms = int(scenario["handler"].get("timeoutMs") or DEFAULT_TIMEOUT_MS)

        def deliver(running: RunLoop) -> None:
            deliver_queue(
                running,
                drive,
                max_redeliveries=max_redeliveries,
                handler=self.handler,
                seed=str(data.get("seed", "")),
                function_name=_function_name(scenario),
                timeout_ms=timeout_ms,
            )

        with _environment(self.environment), self.boundary.installed(loop):
            loop.run(deliver)
        if loop.end.get("kind") != "completed":
            self.tables.forget()
            return loop.result()
        for name, rows in self.tables.snapshot(tables).items():
            loop.record_snapshot(target_of([name]), SNAPSHOT_TABLE, rows)
        return loop.result()

    def describe(self) -> dict:
        return {
            "platform": "aws",
            "dynamodb": self.local.description,
            "assumptions": [*ASSUMPTIONS, f"DynamoDB semantics are those of {self.local.description}."],
        }

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._sys_path_entry is not None and self._sys_path_entry in sys.path:
            sys.path.remove(self._sys_path_entry)
        self.local.close()

    def __enter__(self) -> "AwsPlatform":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


def _validate(scenario: Mapping[str, Any]) -> None:
    if scenario.get("platform") != "aws":
        raise UserError(f"scenario {scenario.get('name')!r} is for platform {scenario.get('platform')!r}, not aws")
    spec = scenario.get("handler")
    if not isinstance(spec, Mapping) or not isinstance(spec.get("path"), str):
        raise UserError("the scenario has no handler; build it with eutaxy.aws.handler('./handler.py', 'handler')")
    drive = scenario.get("drive") or {}
    if drive.get("kind") != "sqs":
        raise UserError(f"the AWS platform drives an sqs queue; the scenario's drive is {drive.get('kind')!r}")


def _load_handler(path: str, function: str) -> Callable[[Any, Any], Any]:
    if not os.path.isfile(path):
        raise UserError(f"the handler module {path} does not exist; handler() paths are relative to the scenario")
    # A fresh module per platform, as a fresh Lambda container would import it: two checks
    # of one handler never share its module state.
    name = _module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    target = getattr(module, function, None)
    if not callable(target):
        raise UserError(f"{path} has no function {function!r} to use as the handler")
    return target


def create_platform(scenario: Mapping[str, Any]) -> AwsPlatform:
    """The Platform for an AWS scenario (the engine's ``check_scenario`` drives it)."""
    return AwsPlatform.start(scenario)
