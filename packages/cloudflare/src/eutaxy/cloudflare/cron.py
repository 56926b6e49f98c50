"""The cron drive: the Worker's ``scheduled()`` run at the ticks of one Cron Trigger.

Cloudflare calls ``scheduled(controller, env, ctx)`` at each time the expression matches (in
UTC), with ``controller.scheduledTime`` that time and ``controller.cron`` the expression. The
drive fires the expression's first ``ticks`` times from the virtual epoch on, each tick an event
``tick-1``, ``tick-2``, ... due at its own virtual time, so the clock and ``scheduledTime``
agree. Cloudflare documents ``controller.noRetry()`` but not how often a failed invocation is
run again, so the drive declares it: a tick whose invocation threw or crashed is run again up to
``retries`` times, at once, unless it called ``noRetry()``.

The expression is Cloudflare's five fields (developers.cloudflare.com, Cron Triggers: minute
0-59, hour 0-23, day of month 1-31, month 1-12 or JAN-DEC, weekday 1-7 from 1 = Sunday or
SUN-SAT), each ``*``, a value, a range ``a-b``, a step ``*/s``, ``a/s`` or ``a-b/s``, or a list of
those. ``L``, ``W`` and ``#`` are not modelled, and neither is an expression that restricts both
the day of the month and the weekday (the platform's rule for the two together is not
documented): both are refused, named.
"""

from __future__ import annotations

import datetime
from typing import Any

from eutaxy.core.effects import VIRTUAL_EPOCH_MS
from eutaxy.core.errors import UserError
from eutaxy.engine.holes import Hole
from eutaxy.engine.scenario import EVENT_TIME_FIELD

__all__ = ["TICKS_MAX", "cron", "cron_assumption", "cron_ticks"]

#: The most ticks one drive fires: each is at least one invocation of every run.
TICKS_MAX = 100

#: How far past the virtual epoch ticks are looked for: an expression matching nothing in
#: these years (``0 0 30 2 *``) is refused rather than searched for ever.
_YEARS_SEARCHED = 28

_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
#: Cloudflare numbers weekdays 1 = Sunday to 7 = Saturday.
_WEEKDAYS = ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT")

#: Each field: its name, lowest and highest value, and the names it takes (the first is the lowest value).
_FIELDS = (
    ("minute", 0, 59, ()),
    ("hour", 0, 23, ()),
    ("day of month", 1, 31, ()),
    ("month", 1, 12, _MONTHS),
    ("weekday", 1, 7, _WEEKDAYS),
)


def cron(expression: str, *, ticks: int | Hole = 1, retries: int = 0, name: str = "cron") -> dict[str, Any]:
    """Drive the Worker's ``scheduled()`` at the first ``ticks`` times ``expression`` matches.

    ``expression`` must be one of the wrangler config's ``triggers.crons`` (the Worker's check
    refuses another). Each tick runs ``scheduled()`` once; a tick whose invocation threw or
    crashed runs again, at once, up to ``retries`` times, unless it called ``controller.noRetry()``.

    Args:
        ticks: how many ticks to fire, from the virtual epoch (2026-01-01T00:00Z) on; a draft's
            ``todo(...)`` hole is kept for ``define_scenario`` to refuse.
        retries: the re-runs of a failed tick (Cloudflare documents none; 0: never).
        name: the drive's name, as ``at_least_once_per_message`` names it and the target
            ``Cron:<name>`` of its effects.

    Returns:
        The drive as the contract's plain dict (``kind: "cron"``, ``cron``, ``retries``, and
        ``events`` ``{"id": "tick-1", "atMs": ...}``).
    """
    if not isinstance(name, str) or not name:
        raise UserError(f"cron: name must be a non-empty string, got {name!r}")
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise UserError(f"cron: retries must be a non-negative integer, got {retries!r}")
    if isinstance(ticks, Hole):
        # A draft's todo(...): define_scenario refuses it, naming the hole and its line.
        cron_ticks(expression, 1)
        return {"kind": "cron", "name": name, "cron": expression, "retries": retries, "events": ticks}
    if isinstance(ticks, bool) or not isinstance(ticks, int) or not 1 <= ticks <= TICKS_MAX:
        raise UserError(f"cron: ticks must be a whole number from 1 to {TICKS_MAX}, got {ticks!r}")
    times = cron_ticks(expression, ticks)
    events = [{"id": f"tick-{number}", EVENT_TIME_FIELD: at - VIRTUAL_EPOCH_MS} for number, at in enumerate(times, start=1)]
    return {"kind": "cron", "name": name, "cron": expression, "retries": retries, "events": events}


def cron_ticks(expression: Any, count: int) -> list[int]:
    """The first ``count`` times (epoch milliseconds, UTC) ``expression`` matches, from the virtual epoch on."""
    fields = _parse(expression)
    minutes, hours, days, months, weekdays = fields
    start = datetime.datetime.fromtimestamp(VIRTUAL_EPOCH_MS / 1000, tz=datetime.timezone.utc)
    found: list[int] = []
    day = start.date()
    last = day.replace(year=day.year + _YEARS_SEARCHED)
    while day < last and len(found) < count:
        # isoweekday: Monday 1 .. Sunday 7; Cloudflare's: Sunday 1 .. Saturday 7.
        if day.month in months and day.day in days and day.isoweekday() % 7 + 1 in weekdays:
            for hour in sorted(hours):
                for minute in sorted(minutes):
                    at = datetime.datetime(day.year, day.month, day.day, hour, minute, tzinfo=datetime.timezone.utc)
                    if at >= start and len(found) < count:
                        found.append(int(at.timestamp() * 1000))
        day += datetime.timedelta(days=1)
    if len(found) < count:
        raise UserError(
            f"cron({expression!r}): the expression matches {len(found)} time{'s' if len(found) != 1 else ''} "
            f"in the {_YEARS_SEARCHED} years from the virtual epoch, not the {count} ticks asked for"
        )
    return found


def _parse(expression: Any) -> tuple[set[int], ...]:
    if not isinstance(expression, str) or not expression.strip():
        raise UserError(f"cron: the expression must be a cron string such as '*/5 * * * *', got {expression!r}")
    parts = expression.split()
    if len(parts) != len(_FIELDS):
        raise UserError(
            f"cron({expression!r}): a Cron Trigger has five fields (minute hour day-of-month month weekday), got {len(parts)}"
        )
    if parts[2] != "*" and parts[4] != "*":
        raise UserError(
            f"cron({expression!r}): both the day of month ({parts[2]}) and the weekday ({parts[4]}) are restricted; "
            "how Cloudflare combines the two is not modelled, so restrict one and leave the other '*'"
        )
    return tuple(_field(expression, part, field) for part, field in zip(parts, _FIELDS, strict=True))


def _field(expression: str, text: str, field: tuple[str, int, int, tuple[str, ...]]) -> set[int]:
    what, low, high, names = field
    label = f"cron({expression!r}): the {what} field {text!r}"
    if any(mark in text.upper() for mark in ("L", "W", "#")) and not any(name in text.upper() for name in names):
        raise UserError(f"{label} uses L, W or #, which are not modelled; list the values instead")
    values: set[int] = set()
    for item in text.split(","):
        body, slash, step_text = item.partition("/")
        step = 1
        if slash:
            if not step_text.isdigit() or int(step_text) < 1:
                raise UserError(f"{label}: a step must be a whole number of at least 1, got {step_text!r}")
            step = int(step_text)
        if body == "*":
            first, end = low, high
        elif "-" in body:
            left, _, right = body.partition("-")
            first, end = _value(left, label, low, high, names), _value(right, label, low, high, names)
            if first > end:
                raise UserError(f"{label}: the range {body!r} runs backwards")
        else:
            first = _value(body, label, low, high, names)
            end = high if slash else first
        values.update(range(first, end + 1, step))
    return values


def _value(text: str, label: str, low: int, high: int, names: tuple[str, ...]) -> int:
    if text.upper() in names:
        return low + names.index(text.upper())
    if text.isdigit() and low <= int(text) <= high:
        return int(text)
    named = f" or {names[0]}-{names[-1]}" if names else ""
    raise UserError(f"{label}: {text!r} is not a value from {low} to {high}{named}")


def cron_assumption(drive: dict[str, Any]) -> str:
    """The sentence a verdict lists for the cron drive."""
    retries = drive.get("retries", 0)
    reruns = (
        "a tick whose invocation failed is not run again"
        if retries == 0
        else f"a tick whose invocation threw or crashed is run again at once, up to {retries} time{'s' if retries > 1 else ''}, "
        "unless it called noRetry() (the drive declares this: Cloudflare documents noRetry() but not how a failed "
        "invocation is retried)"
    )
    count = len(drive.get("events") or [])
    ticks = "its first tick" if count == 1 else f"its first {count} ticks"
    return (
        f"Cron Triggers: scheduled() runs once per tick attempt of {drive.get('cron')!r} ({ticks} from the virtual epoch, "
        "UTC), at the tick's virtual time, with scheduledTime that time and cron the expression; "
        f"{reruns}."
    )
