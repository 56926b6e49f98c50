"""The edge between typed simulation verdicts and their JSON data, done by cattrs.

The engine builds a ``Violated``, ``Bounded`` or ``Unsupported`` (``eutaxy.core.verdicts``);
the CLI prints ``to_json(verdict_data(verdict))``, and a report that reads a verdict back
from JSON calls ``verdict_from_data``. Names are camelCase in the data (``keptEvents``,
``faultsInjected``) and snake_case in Python; a field whose metadata says
``omit_if_default`` is left out while it holds its default, so a verdict without the
optional parts reads byte for byte as before. Every JSON name is camelCase of the Python
name, so one field has one name on both sides.

Records that cross the run protocol too (``Effect``, ``Violation``, ``Schedule``,
``EndState``, ``ConsoleLine``, ``InvocationOutcome``, ``UncaughtError``) keep their own ``to_data``/``from_data`` shapes; the converter uses them, so
one record has one shape wherever it appears.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from eutaxy.core.console_lines import ConsoleLine
from eutaxy.core.effects import Effect
from eutaxy.core.invocation_outcomes import FirstError, InvocationOutcome, OutcomeCounts, UncaughtError
from eutaxy.core.protocol import EndState
from eutaxy.core.schedule import Schedule
from eutaxy.core.verdicts import (
    VERDICT_CLASSES,
    Audit,
    Bounded,
    Cause,
    ConfigSource,
    Coverage,
    CoverageMiss,
    CoveragePoint,
    CutCount,
    Divergence,
    Exhaustive,
    FaultFree,
    InvariantSeen,
    Provenance,
    ShrinkPassCount,
    SimulationVerdict,
    SnapshotName,
    UndeterminedCount,
    Unsupported,
    Violated,
)
from eutaxy.core.violations import Violation

__all__ = ["VerdictDataError", "as_verdict", "verdict_data", "verdict_from_data"]


class VerdictDataError(ValueError):
    """Verdict data that does not fit schema version 1; the message names each field at fault."""


def camel_case(name: str) -> str:
    """``kept_events`` -> ``keptEvents``."""
    head, *rest = name.split("_")
    return head + "".join(word.capitalize() for word in rest)


_RECORDS = (
    FirstError,
    OutcomeCounts,
    ShrinkPassCount,
    CutCount,
    UndeterminedCount,
    ConfigSource,
    Provenance,
    Cause,
    InvariantSeen,
    CoveragePoint,
    CoverageMiss,
    Coverage,
    Audit,
    Exhaustive,
    Divergence,
    SnapshotName,
    FaultFree,
    Violated,
    Bounded,
    Unsupported,
)

#: Protocol records with a hand-written shape of their own (the run protocol's).
_PROTOCOL_RECORDS = (Effect, Violation, Schedule, EndState, ConsoleLine, InvocationOutcome, UncaughtError)


def _make_converter() -> cattrs.Converter:
    converter = cattrs.Converter(forbid_extra_keys=False)
    for record in _PROTOCOL_RECORDS:
        converter.register_unstructure_hook(record, lambda value: value.to_data())
        converter.register_structure_hook(record, lambda data, cls: cls.from_data(dict(data)))
    for typed in _RECORDS:
        attrs.resolve_types(typed)
        overrides = {
            field.name: override(
                rename=camel_case(field.name),
                omit_if_default=bool(field.metadata.get("omit_if_default", False)),
            )
            for field in attrs.fields(typed)
        }
        converter.register_unstructure_hook(typed, make_dict_unstructure_fn(typed, converter, **overrides))
        converter.register_structure_hook(typed, make_dict_structure_fn(typed, converter, **overrides))
    return converter


_CONVERTER = _make_converter()

#: Each Python field name's data name, for error paths (cattrs names the attribute).
_DATA_NAMES = {field.name: camel_case(field.name) for record in _RECORDS for field in attrs.fields(record)}


def _data_path(message: str) -> str:
    """``... @ $.kept_events[0]`` -> ``... @ $.keptEvents[0]``: errors name the JSON field."""
    return re.sub(r"\.([a-z_]+)", lambda match: "." + _DATA_NAMES.get(match.group(1), match.group(1)), message)


def verdict_data(verdict: SimulationVerdict) -> dict[str, Any]:
    """The contract's plain data for a typed verdict (canonical under ``to_json``)."""
    assert isinstance(verdict, tuple(VERDICT_CLASSES.values())), type(verdict)
    data = _CONVERTER.unstructure(verdict)
    assert data["kind"] == verdict.kind
    return _lists(data)


def verdict_from_data(data: Mapping[str, Any]) -> SimulationVerdict:
    """The typed verdict for plain data, switching on ``kind``.

    Raises:
        VerdictDataError: the kind is not a simulation verdict kind, or a field is missing
            or of the wrong type (each named by its path, ``$.provenance.seed``).
    """
    if not isinstance(data, Mapping):
        raise VerdictDataError(f"a verdict is an object, got {type(data).__name__}")
    kind = data.get("kind")
    cls = VERDICT_CLASSES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise VerdictDataError(f"$.kind: {kind!r} is not a simulation verdict kind; kinds are {', '.join(VERDICT_CLASSES)}")
    try:
        return _CONVERTER.structure(dict(data), cls)
    except cattrs.BaseValidationError as error:
        raise VerdictDataError("; ".join(_data_path(text) for text in cattrs.transform_error(error))) from None
    except (AssertionError, ValueError, TypeError, KeyError) as error:
        raise VerdictDataError(f"$: {error}") from None


def as_verdict(verdict: SimulationVerdict | Mapping[str, Any]) -> SimulationVerdict:
    """The typed verdict: as given, or structured from plain data (``VerdictDataError`` if it does not read)."""
    if isinstance(verdict, SimulationVerdict):
        return verdict
    return verdict_from_data(verdict)


def _lists(value: Any) -> Any:
    """Tuples become lists, so the data equals what ``json.loads`` of its JSON gives."""
    if isinstance(value, dict):
        return {key: _lists(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_lists(item) for item in value]
    return value
