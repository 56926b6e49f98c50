"""The Lean engine's vocabulary, ``constructs.json``: every construct of SpecIR it meets and whether it takes it.

The table is the one place that says what the engine takes. The emitter names
a construct by its entry's ``name`` whenever it translates or refuses one, and
an entry whose ``lean`` is false is refused with its ``why``; the tests emit
every entry's sample and check the outcome the entry states. A construct the
emitter names that the table lacks is an Eutaxy bug (an assert), so the table
cannot fall behind the code.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

TABLE = Path(__file__).resolve().parent / "constructs.json"


@lru_cache(maxsize=1)
def constructs() -> dict[str, dict[str, Any]]:
    """``{name: entry}`` in the table's order."""
    data = json.loads(TABLE.read_text(encoding="utf-8"))
    out: dict[str, dict[str, Any]] = {}
    for entry in data["constructs"]:
        assert entry["name"] not in out, f"constructs.json names {entry['name']!r} twice"
        assert entry["lean"] or entry.get("why"), f"constructs.json: {entry['name']!r} is refused without a why"
        out[entry["name"]] = entry
    return out


def entry(name: str) -> dict[str, Any]:
    table = constructs()
    assert name in table, f"the Lean emitter names construct {name!r}, which constructs.json lacks"
    return table[name]


def taken(name: str) -> bool:
    """Whether the Lean engine takes construct ``name``."""
    return bool(entry(name)["lean"])


def why_not(name: str) -> str:
    return str(entry(name).get("why", ""))
