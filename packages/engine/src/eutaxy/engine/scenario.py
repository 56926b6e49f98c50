"""The scenario layer: the rules every platform's ``define_scenario`` shares.

A platform's ``define_scenario`` checks and builds only its own fields (a Worker, its
bindings and externals; a Lambda handler and its AWS resources) and hands the shared ones
here, so both platforms refuse the same mistakes with the same words:

- the scenario's name;
- the drive's events: at least one, each id a non-empty string without ``#``, no id twice,
  and the default ids (``msg-1`` …, ``req-1`` … for http: ``default_event_id``); an event's
  virtual time (``at_ms`` in Python, ``atMs`` in the data: ``event_at_ms``);
- the bounds: camelCase names as the seeds write them, snake_case ones converted, an
  unknown or misspelt name refused with the nearest valid one (a misspelt bound would
  quietly check less), values range-checked by ``eutaxy.engine.bounds``; the defaults are
  not written into the scenario, ``resolve_bounds`` applies them;
- the invariants, against the scenario: each well formed (``eutaxy.core.invariants``),
  no name twice, an ``at_least_once_per_message`` naming the scenario's drive and a body
  key every event has.

Reading a scenario back from its file: the seed stem (``scenario_stem``: the file's name
without ``.sim.py``; ``default_seed`` for a scenario dict, else its name). What checks or
replays a scenario file (``expect_holds``, ``check_file``) is the check API's
(``eutaxy.engine.check``): this layer imports nothing that explores. The event id rule
(``default_event_id``) is ``eutaxy.engine.plans``', re-exported here.

Every refusal is a ``UserError`` naming the field (``bounds``, ``invariants[1].name``),
what was expected and what came; the loader adds the scenario file's line.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from eutaxy.core.effects import VIRTUAL_EPOCH_MS
from eutaxy.core.errors import UserError, nearest_names
from eutaxy.core.invariants import validate_invariant
from eutaxy.core.scenario_stem import SCENARIO_SUFFIXES, scenario_stem
from eutaxy.core.selectors import MISSING, get_path

from eutaxy.engine.bounds import BOUND_NAMES, check_bound_values
from eutaxy.engine.plans import EVENT_ID_PREFIXES, default_event_id

__all__ = [
    "BOUND_NAMES",
    "EVENT_ID_PREFIXES",
    "EVENT_TIME_FIELD",
    "SCENARIO_SUFFIXES",
    "default_event_id",
    "default_seed",
    "drive_events",
    "event_at_ms",
    "expect_failures_field",
    "scenario_bounds",
    "scenario_invariants",
    "scenario_name",
    "scenario_stem",
]

#: What a ``define_scenario`` message starts with: where the user wrote the mistake.
_WHERE = "define_scenario"

#: The event field holding its virtual time, in milliseconds since the run's start (``at_ms`` as
#: the Python helpers take it). An event without one is due at the start, as before the field was.
EVENT_TIME_FIELD = "atMs"
#: The latest virtual time an event may be at: the clock (the virtual epoch plus it) stays an
#: exact JavaScript number.
_AT_MS_MAX = 2**53 - 1 - VIRTUAL_EPOCH_MS

#: The most body paths an unknown ``bodyKey`` is compared with (a huge body names only these).
_BODY_PATHS_MAX = 200


# --- names and ids -------------------------------------------------------------------


def scenario_name(name: Any) -> str:
    """The scenario's name: a non-empty string (reports and the fallback seed use it)."""
    if not isinstance(name, str) or not name:
        raise UserError(f"{_WHERE}: name must be a non-empty string, got {name!r}")
    return name


def expect_failures_field(value: Any) -> bool:
    """``expect_failures=``: True or False (a scenario whose handler is meant to fail says so)."""
    if not isinstance(value, bool):
        raise UserError(f"{_WHERE}: expect_failures must be True or False, got {value!r}")
    return value


def drive_events(drive: Mapping[str, Any], what: str = "the drive") -> list[dict[str, Any]]:
    """The drive's events, each naming its id: at least one, ids strings without ``#``, none twice.

    An event without an id gets its default (``default_event_id``), so later code and the
    runtimes never number events themselves. An event's ``at_ms`` is checked
    (``event_at_ms``) and written as ``atMs``; an event without one gains no field.
    """
    events = drive.get("events")
    if not isinstance(events, list) or not events:
        raise UserError(f"{_WHERE}: {what} has no events; give it at least one message")
    result = []
    seen: dict[str, int] = {}
    for position, event in enumerate(events, start=1):
        if not isinstance(event, Mapping):
            raise UserError(f"{_WHERE}: {what}'s event {position - 1} must be a dict, got {event!r}")
        event_id = event.get("id", default_event_id(drive.get("kind"), position))
        if not isinstance(event_id, str) or not event_id or "#" in event_id:
            raise UserError(
                f"{_WHERE}: {what}'s event {position - 1} id must be a non-empty string without '#', got {event_id!r}"
            )
        if event_id in seen:
            ids = [item.get("id") if isinstance(item, Mapping) else None for item in events]
            raise UserError(f"{_WHERE}: the drive's event ids repeat: {ids} ({event_id!r} is events {seen[event_id]} and {position - 1})")
        seen[event_id] = position - 1
        timed = {key: value for key, value in event.items() if key != "at_ms"}
        at_ms = event_at_ms(event, f"{what}'s event {event_id!r}")
        if at_ms is not None:
            timed[EVENT_TIME_FIELD] = at_ms
        result.append({**timed, "id": event_id})
    return result


def event_at_ms(event: Mapping[str, Any], what: str) -> int | None:
    """An event's virtual time (``at_ms``, or ``atMs`` as the data spells it), or None when it has none.

    Virtual milliseconds since the run's start: a whole number, at least 0. Events are
    delivered in order of time, then of listing; a timer or expiry due before an event's
    time fires first. Refused: both spellings, or anything but such a number.
    """
    if "at_ms" in event and EVENT_TIME_FIELD in event:
        raise UserError(f"{_WHERE}: {what} gives both at_ms and atMs; give at_ms only")
    value = event.get("at_ms", event.get(EVENT_TIME_FIELD))
    if value is None and "at_ms" not in event and EVENT_TIME_FIELD not in event:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _AT_MS_MAX:
        raise UserError(
            f"{_WHERE}: {what}: at_ms must be a whole number of virtual milliseconds since the run's start "
            f"(0 to {_AT_MS_MAX}), got {value!r}"
        )
    return value


def default_seed(scenario: Mapping[str, Any]) -> str:
    """The scenario file's stem (``queue-duplicate-write``), else the scenario's name."""
    source = scenario.get("source")
    if isinstance(source, str) and source:
        return scenario_stem(source)
    name = scenario.get("name")
    if not isinstance(name, str) or not name:
        raise UserError("the scenario has neither a source file nor a name; pass seed= to check it")
    return name


# --- bounds --------------------------------------------------------------------------


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def scenario_bounds(
    bounds: Mapping[str, Any] | None,
    *,
    names: Sequence[str] = BOUND_NAMES,
    refused: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The bounds a scenario gives, keyed by their camelCase names and range-checked.

    ``names`` are the bounds the platform reads (the engine's and its own); ``refused``
    maps a bound the seeds name but this build cannot honour to the sentence saying why,
    so it is refused rather than accepted and dropped. Defaults are left out: the engine
    resolves them (``eutaxy.engine.bounds.resolve_bounds``), so they are written once.
    """
    if bounds is None:
        return {}
    if not isinstance(bounds, Mapping):
        raise UserError(f"{_WHERE}: bounds must be a dict such as {{'maxFaultsPerRun': 1}}, got {type(bounds).__name__}")
    refused = refused or {}
    camel: dict[str, Any] = {}
    spelt: dict[str, str] = {}
    for key, value in bounds.items():
        if not isinstance(key, str):
            raise UserError(f"{_WHERE}: bounds names are strings such as 'maxFaultsPerRun', got {key!r}")
        name = _camel(key)
        if name in refused:
            raise UserError(f"{_WHERE}: bounds: {key!r} is not accepted by this build: {refused[name]}", near=key)
        if name not in names:
            raise UserError(
                f"{_WHERE}: unknown bound {key!r} in bounds; {nearest_names(name, names, what='the bounds')}", near=key
            )
        if name in camel:
            raise UserError(f"{_WHERE}: bound {name} is given twice in bounds (as {spelt[name]!r} and {key!r})", near=key)
        camel[name] = value
        spelt[name] = key
    return check_bound_values(camel)


# --- invariants ----------------------------------------------------------------------


def _body_paths(body: Any, prefix: str = "") -> list[str]:
    """The dot paths into a body (``orderId``, ``items.0.sku``), breadth first, at most _BODY_PATHS_MAX."""
    paths: list[str] = []
    pending = [(prefix, body)]
    while pending and len(paths) < _BODY_PATHS_MAX:
        path, value = pending.pop(0)
        if isinstance(value, Mapping):
            children = [(str(key), item) for key, item in value.items()]
        elif isinstance(value, (list, tuple)):
            children = [(str(index), item) for index, item in enumerate(value)]
        else:
            continue
        for key, item in children:
            child = f"{path}.{key}" if path else key
            paths.append(child)
            pending.append((child, item))
    return paths[:_BODY_PATHS_MAX]


def _free_name(name: str, taken: Iterable[str]) -> str:
    """The nearest name no invariant has: ``name-2``, ``name-3``, …"""
    used = set(taken)
    suffix = 2
    # Bounded: at most len(used) suffixes are taken.
    while f"{name}-{suffix}" in used:
        suffix += 1
    return f"{name}-{suffix}"


def scenario_invariants(invariants: Any, drive: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The scenario's invariants as plain dicts, each checked against the scenario.

    Refused: an item that is no invariant, a malformed one (``validate_invariant``), two
    with one name (the report and the regression test tell violations apart by name), an
    ``at_least_once_per_message`` naming another drive than the scenario's, or a body key
    some event lacks (its expectation could not be derived).
    """
    if isinstance(invariants, (str, bytes, Mapping)) or not isinstance(invariants, Iterable):
        raise UserError(f"{_WHERE}: invariants must be a list, got {type(invariants).__name__}")
    result: list[dict[str, Any]] = []
    first: dict[str, int] = {}
    for index, item in enumerate(invariants):
        if not isinstance(item, Mapping) or not isinstance(item.get("kind"), str) or not item.get("name"):
            raise UserError(
                f"{_WHERE}: invariants[{index}] must be an invariant such as at_most_once_per_key(...), got {item!r}"
            )
        invariant = dict(item)
        validate_invariant(invariant)
        name = invariant["name"]
        if name in first:
            raise UserError(
                f"{_WHERE}: invariants[{index}].name: two invariants are named {name!r} (invariants[{first[name]}] "
                f"and invariants[{index}]); give each its own name (the nearest free one: {_free_name(name, first)!r})",
                near=name,
            )
        first[name] = index
        if invariant["kind"] == "at_least_once_per_message":
            _check_per_message(invariant, index, drive)
        result.append(invariant)
    return result


def _check_per_message(invariant: dict[str, Any], index: int, drive: Mapping[str, Any]) -> None:
    label = f"invariant {invariant['name']!r}"
    drive_name = drive.get("name")
    if invariant["drive"] != drive_name:
        raise UserError(
            f"{_WHERE}: invariants[{index}].drive: {label} expects one effect per message of drive "
            f"{invariant['drive']!r}, which the scenario does not have; "
            f"{nearest_names(str(invariant['drive']), [str(drive_name)], what='the scenario drive')} "
            "(pass the scenario's drive to at_least_once_per_message)",
            near=str(invariant["drive"]),
        )
    body_key = invariant["bodyKey"]
    for event in drive.get("events") or []:
        body = event.get("body") if isinstance(event, Mapping) else None
        if get_path(body, body_key) is MISSING:
            raise UserError(
                f"{_WHERE}: invariants[{index}].bodyKey: event {event.get('id')!r} has no body value at {body_key!r}, "
                f"so the expectation of {label} cannot be derived; {nearest_names(body_key, _body_paths(body), what='its body paths')}",
                near=body_key,
            )
