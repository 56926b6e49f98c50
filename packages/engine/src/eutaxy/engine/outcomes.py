"""How an exploration ends: a confirmed violation, an unsupported run, or its bounds.

Explorers return one of these; ``check`` turns it into a verdict. ``exhaustive`` is the
enumerator's own report (completed, schedules, reduction) and is None for seeded
exploration.
"""

from __future__ import annotations

from typing import Any

import attrs

from eutaxy.core.violations import Violation

from eutaxy.engine.session import RunRecord

__all__ = ["Exhausted", "Found", "Outcome", "Stopped"]


@attrs.frozen(kw_only=True)
class Found:
    """A violation that replayed: ``record`` is the replay, ``violation`` its violation."""

    record: RunRecord
    violation: Violation
    exhaustive: dict[str, Any] | None = None


@attrs.frozen(kw_only=True)
class Stopped:
    """A run exploration cannot go past: UNSUPPORTED with ``cause``."""

    cause: str
    detail: str
    exhaustive: dict[str, Any] | None = None


@attrs.frozen(kw_only=True)
class Exhausted:
    """No violation within the bounds; ``bounds_reached`` names the bounds that stopped it.

    ``completed``: every schedule within the bounds ran (no bound stopped exploration).
    """

    bounds_reached: tuple[str, ...] = ()
    exhaustive: dict[str, Any] | None = None
    completed: bool = False


Outcome = Found | Stopped | Exhausted
