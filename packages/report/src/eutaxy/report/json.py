"""The JSON report: one canonical object per command, versioned by ``schemaVersion``.

Every object carries ``schemaVersion: 1`` and a ``kind``; consumers switch on ``kind``
with a default branch, since a release may add kinds and optional fields within a version
(a removed or re-typed field bumps the version). The text is ``eutaxy.core.canonical``'s
``to_json`` (sorted keys, no spaces, fixed number formatting), so equal data gives
byte-identical reports and a verdict's JSON depends only on the scenario, seed and bounds.
"""

from __future__ import annotations

from typing import Any

from eutaxy.core.canonical import to_json

__all__ = ["SCHEMA_VERSION", "error_report", "render_json", "report_object"]

#: The report schema this package writes.
SCHEMA_VERSION = 1


def report_object(data: dict, *, kind: str | None = None) -> dict:
    """Return ``data`` as a report object: ``schemaVersion`` set and a ``kind`` present.

    ``kind`` fills in a missing kind (a command's own result, such as an install); a kind
    already in ``data`` wins. A ``schemaVersion`` other than this one is refused rather
    than relabelled, since that would misstate what the fields mean.
    """
    if not isinstance(data, dict):
        raise TypeError(f"a report is a dict, got {type(data).__name__}")
    version = data.get("schemaVersion", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        raise ValueError(f"report has schemaVersion {version!r}; this writer writes {SCHEMA_VERSION}")
    report = dict(data)
    report["schemaVersion"] = SCHEMA_VERSION
    if report.get("kind") is None:
        if kind is None:
            raise ValueError("a report needs a kind (consumers switch on it)")
        report["kind"] = kind
    return report


def render_json(data: dict, *, kind: str | None = None) -> str:
    """The canonical JSON text of a report object (no trailing newline)."""
    return to_json(report_object(data, kind=kind))


def error_report(message: str, *, kind: str = "error", **fields: Any) -> dict:
    """The report for a command that could not run: bad input, a missing package.

    ``kind`` is ``error`` for the user's to fix and ``internal_error`` for a bug in Eutaxy.
    """
    return report_object({**fields, "kind": kind, "message": message})
