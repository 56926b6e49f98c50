"""Differential gate for r2-bucket-ops: proxied and raw runs must agree on the bucket.

The case runs fault-free once through Eutaxy's R2 proxy (a plan with no faults,
through the platform) and once with the handler on the raw bucket in the same
Miniflare instance; the final bucket (every object, the seeded ones too, read by
the same snapshot on both sides) and the per-attempt decisions must be the same.
A second test plants a divergence on the proxied side, as a proxy writing the
wrong bytes would, and requires the runner to report it, so this gate can fail.
"""

from eutaxy.cloudflare.differential import decisions_of_raw
from agreement import agreed, raw_rows
from divergence import differing_tables, diverged

SEED = "r2-bucket-ops"


def test_proxied_and_raw_runs_agree(scenario):
    outcome = agreed(scenario, SEED)
    # The case exercises what it says: the retry, the dead letter, and every object.
    attempts = decisions_of_raw(outcome.raw)
    assert {"messageId": "msg-5", "op": "retry", "implicit": False} in attempts[4]["decisions"]
    assert [{"messageId": "msg-6", "attempts": 3}] == attempts[-1]["deadLettered"]
    rows = {row["key"]: row for row in raw_rows(outcome, "R2:MEDIA", "objects")}
    assert [
        "archive/originals/a.txt",
        "archive/originals/b.bin",
        "archive/originals/c.txt",
        "copies/b.bin",
        "counters/n",
        "derived/originals/a.txt",
        "derived/originals/c.txt",
        "originals/b.bin",
        "originals/c.txt",
        "untouched/d.txt",
    ] == sorted(rows)
    assert "2" == rows["counters/n"]["text"]
    assert "ALPHA" == rows["derived/originals/a.txt"]["text"]
    assert rows["originals/b.bin"]["etag"] == rows["copies/b.bin"]["etag"]
    assert {"owner": "c"} == rows["archive/originals/c.txt"]["customMetadata"]


def derive_from_another_source(scenario):
    """As a buggy R2 proxy would: the proxied side derives from another source than the message names."""
    for event in scenario["drive"]["events"]:
        if event["body"].get("source") == "originals/a.txt":
            event["body"]["source"] = "untouched/d.txt"


def test_a_planted_divergence_is_reported(scenario):
    outcome = diverged(scenario, SEED, derive_from_another_source)
    tables = differing_tables(outcome)
    assert ["R2:MEDIA/objects"] == sorted(tables)
    assert any('"DELTA"' in row for row in tables["R2:MEDIA/objects"]["proxiedOnly"])
    assert any('"ALPHA"' in row for row in tables["R2:MEDIA/objects"]["rawOnly"])
