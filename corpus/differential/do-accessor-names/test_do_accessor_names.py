"""Differential gate for do-accessor-names: a class whose members share the wrapper's old names.

The case runs fault-free once through Eutaxy's Durable Object proxy, where the class runs
inside Eutaxy's wrapper, and once with the handler on the raw namespace in the same Miniflare
instance. A `state` accessor with a setter, an `instance` getter and methods `objectEnv` and
`user` must run as written: every profile's key-value rows and tables and the D1 table of the
object's answers must be the same. A planted divergence changes one visitor's name on the
proxied side, and the runner must report it.
"""

from agreement import agreed, raw_rows
from divergence import differing_tables, diverged

SEED = "do-accessor-names"


def test_proxied_and_raw_runs_agree(scenario):
    outcome = agreed(scenario, SEED)
    # The case exercises what it says, on workerd's side: every member answered as written.
    assert {
        ("p1", "user", '{"visits":1,"last":"ann"}'),
        ("p1", "user", '{"visits":2,"last":"bo"}'),
        ("p1", "state", '{"visits":2,"last":"bo"}'),
        ("p2", "instance", '"profile p2"'),
        ("p2", "objectEnv", '["DB","PROFILES"]'),
        ("p2", "user", '{"visits":1,"last":"cy"}'),
    } == {(row["profile"], row["member"], row["answer"]) for row in raw_rows(outcome, "D1:DB", "answers")}


def rename_a_visitor(scenario):
    """As a proxy passing the wrong argument would: bo visits as bob on the proxied side."""
    for event in scenario["drive"]["events"]:
        if event["body"].get("name") == "bo":
            event["body"]["name"] = "bob"


def test_a_planted_divergence_is_reported(scenario):
    outcome = diverged(scenario, SEED, rename_a_visitor)
    tables = sorted(differing_tables(outcome))
    assert ["D1:DB/answers", "DO:PROFILES/p1", "DO:PROFILES/p1/profile_state"] == tables, outcome.differences
