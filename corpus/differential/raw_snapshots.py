"""The raw side's final state, as every differential gate reads it, written once.

A gate's first test checks that the case exercises what it says on workerd's side (the raw
run): it reads the rows of one table of one binding from the raw run's snapshots. Each
snapshot names its binding (``target``, ``"D1:DB"``, ``"DO:ROOMS"``, ``"R2:MEDIA"``) and its
table (a D1 table, a Durable Object's name or ``<name>/<sql table>``, R2's ``objects``).
"""

from typing import Any


def raw_rows(outcome: Any, target: str, table: str) -> list[dict[str, Any]]:
    """The rows of ``table`` of binding ``target`` in the raw run's snapshots; exactly one snapshot must hold them."""
    found = [snapshot["rows"] for snapshot in outcome.raw["snapshots"] if (snapshot["target"], snapshot["table"]) == (target, table)]
    assert 1 == len(found), f"{len(found)} raw snapshots of {target}/{table}; there are {sorted((s['target'], s['table']) for s in outcome.raw['snapshots'])}"
    return found[0]
