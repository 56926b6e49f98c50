"""Selector and query data for core's tests, written by hand.

Core knows no platform: the helpers that build these (``eutaxy.cloudflare.d1_write``, …) live
with their platforms, and core's checkers read only the plain data, so its tests write it out.
"""

from __future__ import annotations

from typing import Any

from eutaxy.core.selectors import rows

#: D1 statements on DB that wrote a row (what ``eutaxy.cloudflare.d1_write("DB")`` returns).
WRITES = {"target": "D1:DB", "op": None, "kind": "result", "where": {"statement": "write", "result.changes": {"gt": 0}}}
#: D1 statements on DB that read (``d1_read("DB")``).
READS = {"target": "D1:DB", "op": None, "kind": "result", "where": {"statement": "read"}}
#: Acknowledgements of queue payments that took effect (``queue_ack("payments")``).
ACKS = {"target": "Queue:payments", "op": "ack", "kind": "result", "where": {"result.effective": True}}


def param(index: int) -> str:
    """The key of a D1 statement's bound parameter (``d1_param(index)``)."""
    return f"args.params.{index}"


def writes_to(binding: str) -> dict[str, Any]:
    """``WRITES`` on another binding."""
    return {**WRITES, "target": f"D1:{binding}"}


def table(name: str, binding: str = "DB") -> dict[str, Any]:
    """The rows of a D1 table (``d1_rows(binding, name)``)."""
    return rows(f"D1:{binding}", name)
