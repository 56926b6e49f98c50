"""``define_scenario``: a Worker scenario as the plain data the engine checks.

A ``*.sim.py`` file calls :func:`define_scenario` at module level and binds the
result to ``scenario``. The helpers only build and check data; nothing here
reads the Worker or starts anything, so a scenario file loads in milliseconds
and its mistakes surface as :class:`~eutaxy.core.errors.UserError` at the line
that made them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from eutaxy.core.errors import UserError
from eutaxy.engine.bounds import AFTER_WORK_TIMER_LIMIT_DEFAULT
from eutaxy.engine.holes import refuse_holes
from eutaxy.engine.scenario import BOUND_NAMES, drive_events, expect_failures_field, scenario_bounds, scenario_invariants, scenario_name
from eutaxy.engine.scenario_file import scenario_root

from . import bindings
from .cron import cron_ticks
from .externals import validate_externals
from .http import http
from .rpc import rpc

__all__ = ["REFUSED_BOUNDS", "define_scenario"]

#: The bounds the Cloudflare platform reads: the engine's and its own.
CLOUDFLARE_BOUND_NAMES = (*BOUND_NAMES, "alarmsPerObject", "afterWorkTimerLimit")

#: How many alarms one Durable Object fires at most in a run (retries of one alarm are that
#: alarm): an object that keeps re-arming would otherwise make a run without end.
ALARMS_PER_OBJECT_DEFAULT = 3

#: Bounds the seeds name for bindings this build does not model yet, each with why it is
#: refused: accepting one would promise a limit nothing enforces. (None today.)
REFUSED_BOUNDS: dict[str, str] = {}


def define_scenario(
    *,
    name: str,
    worker: Mapping[str, Any] | None = None,
    setup: Sequence[Mapping[str, Any]] = (),
    drive: Mapping[str, Any],
    invariants: Sequence[Mapping[str, Any]] = (),
    bounds: Mapping[str, Any] | None = None,
    specs: Sequence[Any] = (),
    externals: Sequence[Mapping[str, Any]] = (),
    root: str | Path | None = None,
    source: str | Path | None = None,
    expect_failures: bool = False,
) -> dict[str, Any]:
    """Build a Cloudflare scenario.

    Args:
        name: the scenario's name, as reports and the default seed use it.
        worker: ``{"entry": "./worker.ts", "config": "./wrangler.jsonc"}``, both
            relative to the scenario file. Either may be left out: the entry then
            comes from the config's ``main``, the config from the file wrangler
            would find beside the scenario. ``"env": "staging"`` applies that
            wrangler environment (as ``wrangler --env staging`` would).
            ``"vars": {"MODE": "test"}`` and ``"secrets": {"API_KEY": "..."}`` add
            to the Worker's ``env``, winning over the config's ``vars`` and
            ``.dev.vars``; a secret's value is never shown in a report.
        setup: setup steps, such as :func:`eutaxy.cloudflare.d1_schema`.
        drive: the one drive, such as :func:`eutaxy.cloudflare.queue`, :func:`eutaxy.cloudflare.http`,
            :func:`eutaxy.cloudflare.cron` or :func:`eutaxy.cloudflare.rpc`.
        invariants: invariants from :mod:`eutaxy.core.invariants`, each with its own name.
        bounds: the exploration bounds; camelCase names (``maxFaultsPerRun``) are
            taken as given and snake_case ones (``max_faults_per_run``) converted; an
            unknown name is refused with the nearest bound named
            (``eutaxy.engine.scenario.scenario_bounds``).
        specs: core modules whose calls are recorded as decisions.
        externals: the outside services the Worker fetches, each :func:`eutaxy.cloudflare.external`.
        root, source: override the directory and file the scenario is read from;
            by default the file that called this function.
        expect_failures: the scenario checks a handler that is meant to fail (every
            invocation throws, say); without it a check in which no invocation of the
            drive returned normally in a fault-free run is UNSUPPORTED
            ``handler_never_succeeded`` rather than a pass.

    Returns:
        The scenario as the contract's plain dict, with ``platform: "cloudflare"``.

    Raises:
        UserError: a field has the wrong shape, or still holds a ``todo(...)`` hole (a
            draft not yet filled in; ``eutaxy.engine.holes``).
    """
    refuse_holes(
        {"name": name, "worker": worker, "setup": setup, "drive": drive, "invariants": invariants,
         "bounds": bounds, "specs": specs, "externals": externals}
    )
    if source is None:
        source = _caller_file()
    source_path = _absolute(source) if source is not None else None
    scenario_name(name)
    worker_fields = _worker(worker)
    steps = [_setup_step(step, index) for index, step in enumerate(_list(setup, "setup"))]
    spec_items = _list(specs, "specs")
    if root is None:
        if source_path is None:
            raise UserError("define_scenario could not tell which file called it; pass root= (the scenario's directory)")
        named = [worker_fields[field] for field in ("entry", "config") if field in worker_fields]
        named += [step["path"] for step in steps if isinstance(step.get("path"), str)]
        named += [str(item) for item in spec_items if isinstance(item, (str, Path))]
        root = scenario_root(source_path, named)
    drive_data = _drive(drive)
    scenario: dict[str, Any] = {
        "name": name,
        "platform": "cloudflare",
        "root": str(_absolute(root)),
        "worker": worker_fields,
        "setup": steps,
        "drive": drive_data,
        "invariants": scenario_invariants(_list(invariants, "invariants"), drive_data),
        "bounds": {
            "alarmsPerObject": ALARMS_PER_OBJECT_DEFAULT,
            "afterWorkTimerLimit": AFTER_WORK_TIMER_LIMIT_DEFAULT,
            **scenario_bounds(bounds, names=CLOUDFLARE_BOUND_NAMES, refused=REFUSED_BOUNDS),
        },
        "specs": [_spec_path(root, item, index) for index, item in enumerate(spec_items)],
        "externals": validate_externals(externals),
    }
    if source_path is not None:
        scenario["source"] = str(source_path)
    if expect_failures_field(expect_failures):
        scenario["expectFailures"] = True
    return scenario


#: The fields ``worker=`` takes.
WORKER_FIELDS = ("entry", "config", "env", "vars", "secrets")


def _worker(worker: Mapping[str, Any] | None) -> dict[str, Any]:
    if worker is None:
        return {}
    if not isinstance(worker, Mapping):
        raise UserError(f"define_scenario: worker must be a dict with entry and config, got {worker!r}")
    unknown = set(worker) - set(WORKER_FIELDS)
    if unknown:
        raise UserError(f"define_scenario: worker takes {', '.join(WORKER_FIELDS)}, not {', '.join(sorted(unknown))}")
    result: dict[str, Any] = {}
    if "env" in worker:
        env = worker["env"]
        if not isinstance(env, str) or not env:
            raise UserError(f"define_scenario: worker.env must name a wrangler environment such as 'staging', got {env!r}")
        result["env"] = env
    for field in ("vars", "secrets"):
        if field in worker:
            result[field] = _variables(worker[field], field)
    both = sorted(set(result.get("vars", {})) & set(result.get("secrets", {})))
    if both:
        raise UserError(f"define_scenario: worker.vars and worker.secrets both name {', '.join(both)}; keep each name in one")
    for field in ("entry", "config"):
        if field in worker:
            value = worker[field]
            if isinstance(value, Path):
                value = str(value)
            if not isinstance(value, str) or not value:
                raise UserError(f"define_scenario: worker.{field} must be a path string, got {value!r}")
            result[field] = value
    return result


def _variables(value: Any, field: str) -> dict[str, Any]:
    """worker.vars (plain data values) or worker.secrets (strings), checked; a secret's value is never quoted."""
    if not isinstance(value, Mapping):
        raise UserError(f"define_scenario: worker.{field} must be a dict of names to values, got {type(value).__name__}")
    result = {}
    for name, item in value.items():
        if not isinstance(name, str) or not name:
            raise UserError(f"define_scenario: worker.{field} has a name that is not a non-empty string: {name!r}")
        if field == "secrets" and not isinstance(item, str):
            raise UserError(f"define_scenario: worker.secrets[{name!r}] must be a string, got {type(item).__name__}")
        if field == "vars" and (item is None or not isinstance(item, (str, int, float, bool, list, dict))):
            raise UserError(f"define_scenario: worker.{field}[{name!r}] must be a string or plain JSON data, got {item!r}")
        result[name] = item
    return result


def _setup_step(step: Any, index: int) -> dict[str, Any]:
    if not isinstance(step, Mapping) or not isinstance(step.get("kind"), str):
        raise UserError(f"define_scenario: setup[{index}] must be a setup step such as d1_schema(...), got {step!r}")
    return dict(step)


def _drive(drive: Any) -> dict[str, Any]:
    if not isinstance(drive, Mapping) or not isinstance(drive.get("kind"), str):
        raise UserError(f"define_scenario: drive must be a drive such as queue(...), got {drive!r}")
    if drive.get("kind") == "http":
        drive = _http_drive(drive)
    if drive.get("kind") == "websocket":
        _websocket_drive(drive)
    if drive.get("kind") == "cron":
        _cron_drive(drive)
    if drive.get("kind") == "rpc":
        drive = _rpc_drive(drive)
    for kind in bindings.registered():
        if kind.drive is not None and kind.drive == drive.get("kind"):
            drive = kind.define_drive(drive)
    return {**dict(drive), "events": drive_events(drive)}


def _websocket_drive(drive: Mapping[str, Any]) -> None:
    """A websocket drive as :func:`eutaxy.cloudflare.websocket` writes it: each event names its connection, each open its path."""
    events = drive.get("events")
    ok = isinstance(events, list) and all(
        isinstance(event, Mapping)
        and isinstance(event.get("connection"), str)
        and (event.get("id") != event.get("connection") or isinstance(event.get("path"), str))
        for event in events
    )
    if not ok:
        raise UserError(
            f"define_scenario: a websocket drive's events must be as websocket([...]) writes them; build the drive with websocket(...), got {events!r}"
        )


def _cron_drive(drive: Mapping[str, Any]) -> None:
    """A cron drive as :func:`eutaxy.cloudflare.cron` writes it: an expression, a name, the retries, each tick's time."""
    expression, name, retries, events = drive.get("cron"), drive.get("name"), drive.get("retries"), drive.get("events")
    if not isinstance(name, str) or not name or isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise UserError(f"define_scenario: a cron drive needs its name and retries; build the drive with cron(...), got {dict(drive)!r}")
    cron_ticks(expression, 1)
    if not isinstance(events, list) or not all(isinstance(event, Mapping) and isinstance(event.get("atMs"), int) for event in events):
        raise UserError(f"define_scenario: a cron drive's events are its ticks as cron(...) writes them, each with its atMs; got {events!r}")


def _rpc_drive(drive: Mapping[str, Any]) -> dict[str, Any]:
    """An rpc drive as :func:`eutaxy.cloudflare.rpc` builds it, a hand-written one rebuilt through it."""
    if "entrypoint" not in drive:
        raise UserError(
            "define_scenario: an rpc drive needs its entrypoint (an export's name, or None for the default export); "
            f"build the drive with rpc(...), got {dict(drive)!r}"
        )
    fields = ("retries", "delaysMs", "deadlineMs")
    return _caller_drive(drive, "rpc", "calls", fields, lambda events, caller, args: rpc(events, entrypoint=drive["entrypoint"], **args))


def _http_drive(drive: Mapping[str, Any]) -> dict[str, Any]:
    """An http drive as :func:`eutaxy.cloudflare.http` builds it, a hand-written one included."""
    fields = ("retries", "retryOn", "delaysMs", "deadlineMs")
    return _caller_drive(drive, "http", "requests", fields, lambda events, caller, args: http(events, retry_on=caller["retryOn"], **args))


def _caller_drive(
    drive: Mapping[str, Any], kind: str, noun: str, fields: tuple[str, ...], build: Callable[[Sequence[Any], Mapping[str, Any], dict[str, Any]], dict[str, Any]]
) -> dict[str, Any]:
    """A drive with a declared caller (http, rpc), rebuilt through its helper (``build``).

    The runtime's drive fills in nothing (a request's method and headers, the caller's
    policy), so a drive written as a plain dict is rebuilt through ``http()`` or ``rpc()``: the
    same checks, the same fields, and a missing caller (its ``fields``) is the user's to fix
    here, not an internal error in the run. ``build`` gets the events, the caller and the
    helper's arguments the two drives share (retries, delays, deadline, name).
    """
    caller = drive.get("caller")
    if not isinstance(caller, Mapping) or any(field not in caller for field in fields):
        raise UserError(
            f"define_scenario: an {kind} drive needs its caller {{{', '.join(fields)}}}; build the drive with {kind}(...), got caller {caller!r}"
        )
    events = drive.get("events")
    if isinstance(events, (str, bytes)) or not isinstance(events, Sequence):
        raise UserError(f"define_scenario: an {kind} drive's events must be a list of {noun}, got {events!r}")
    name = drive.get("name", kind)
    args = {"retries": caller["retries"], "delays_ms": caller["delaysMs"], "deadline_ms": caller["deadlineMs"], "name": name if isinstance(name, str) else kind}
    return {**dict(drive), **build(events, caller, args)}


def _spec_path(root: str | Path, item: Any, index: int) -> str:
    """A core module of ``specs`` as an absolute path (relative ones against the scenario's root)."""
    if isinstance(item, Path):
        item = str(item)
    if not isinstance(item, str) or not item:
        raise UserError(f"define_scenario: specs[{index}] must be a path to a core module such as './domain.ts', got {item!r}")
    return str(_absolute(Path(root) / item))


def _list(value: Any, field: str) -> list[Any]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise UserError(f"define_scenario: {field} must be a list, got {type(value).__name__}")
    return list(value)


def _absolute(path: str | Path) -> Path:
    """An absolute, normalised path that keeps symlinks (scenario_root says which folder a
    scenario that is a link reads its files from)."""
    return Path(os.path.normpath(os.path.abspath(path)))


def _caller_file() -> str | None:
    """The file of the first frame outside this package: the scenario file."""
    frame = sys._getframe(1)
    package_dir = str(Path(__file__).resolve().parent) + os.sep
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith("<") and not str(Path(filename).resolve()).startswith(package_dir):
            return filename
        frame = frame.f_back
    return None
