"""eutaxy.core: the pure data model every other layer shares.

The effect log, selectors and keys, the fault model and redelivery rule, seeded streams,
canonical JSON, invariants (incl. refines), schedules and verdicts. Pure: attrs and the
standard library, no I/O, no clocks. The run protocol types live in ``eutaxy.core.protocol``.
"""

from eutaxy.core.canonical import canonical_key, to_json
from eutaxy.core.effects import Effect
from eutaxy.core.errors import UserError
from eutaxy.core.faults import (
    AMBIGUOUS,
    BACKGROUND_FAULTS,
    CRASH_AFTER,
    CRASH_BEFORE,
    CUT_OFF,
    DECISION_FAULTS,
    ERROR,
    READ_FAULTS,
    REDELIVERY,
    RESPONSE_FAULTS,
    WRITE_FAULTS,
    may_redeliver,
)
from eutaxy.core.invariants import (
    aggregate,
    at_least_once,
    at_least_once_per_message,
    at_most_once_per_key,
    check_invariants,
    every_row,
    implies,
    in_order_per_key,
    max_interval_per_key,
    min_interval_per_key,
    references,
    refines,
    unique,
)
from eutaxy.core.prng import Xoshiro128, seed_words
from eutaxy.core.schedule import FaultAt, Schedule
from eutaxy.core.selectors import get_path, rows
from eutaxy.core.violations import Violation

__all__ = [
    "AMBIGUOUS",
    "BACKGROUND_FAULTS",
    "CRASH_AFTER",
    "CRASH_BEFORE",
    "CUT_OFF",
    "DECISION_FAULTS",
    "ERROR",
    "READ_FAULTS",
    "REDELIVERY",
    "RESPONSE_FAULTS",
    "WRITE_FAULTS",
    "Effect",
    "FaultAt",
    "Schedule",
    "UserError",
    "Violation",
    "Xoshiro128",
    "aggregate",
    "at_least_once",
    "at_least_once_per_message",
    "at_most_once_per_key",
    "canonical_key",
    "check_invariants",
    "every_row",
    "get_path",
    "implies",
    "in_order_per_key",
    "max_interval_per_key",
    "may_redeliver",
    "min_interval_per_key",
    "references",
    "refines",
    "rows",
    "seed_words",
    "to_json",
    "unique",
]
