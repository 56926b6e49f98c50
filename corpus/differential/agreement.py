"""The fault-free agreement every differential gate checks first, and the raw side's rows it reads.

A gate's first test runs the case once through Eutaxy's proxies and once on the raw bindings
(``agreed``) and then checks that the case exercises what it says on workerd's side: it reads
the rows of one table of one binding from the raw run's snapshots (``raw_rows``), and an rpc
drive's answers by attempt (``raw_answers``). Each
snapshot names its binding (``target``: ``"D1:DB"``, ``"DO:ROOMS"``, ``"R2:MEDIA"``) and its
table (a D1 table, a Durable Object's name or ``<name>/<sql table>``, R2's ``objects``).
"""

from typing import Any

from eutaxy.cloudflare.differential import DifferentialRunner, decisions_of_raw


def agreed(scenario: Any, seed: str) -> Any:
    """The outcome of the fault-free proxied and raw runs of ``scenario``: they must agree, and the proxied run complete."""
    with DifferentialRunner(scenario) as runner:
        outcome = runner.run(seed=seed)
    assert [] == [difference["message"] for difference in outcome.differences]
    assert {"kind": "completed"} == outcome.proxied["end"]
    return outcome


def raw_rows(outcome: Any, target: str, table: str) -> list[dict[str, Any]]:
    """The rows of ``table`` of binding ``target`` in the raw run's snapshots; exactly one snapshot must hold them."""
    found = [snapshot["rows"] for snapshot in outcome.raw["snapshots"] if (snapshot["target"], snapshot["table"]) == (target, table)]
    assert 1 == len(found), f"{len(found)} raw snapshots of {target}/{table}; there are {sorted((s['target'], s['table']) for s in outcome.raw['snapshots'])}"
    return found[0]


def raw_answers(outcome: Any) -> dict[str, Any]:
    """What each attempt of the raw run answered (an rpc drive's ``{ok, value}`` or ``{ok, error}``), by invocation."""
    return {attempt["invocation"]: attempt["answer"] for attempt in decisions_of_raw(outcome.raw)}
