"""Scenario helpers build the contract's plain data and refuse bad shapes."""

import os
from pathlib import Path

import pytest

from eutaxy.cloudflare import (
    at_least_once_per_message,
    at_most_once_per_key,
    d1_param,
    d1_schema,
    d1_write,
    define_scenario,
    queue,
)
from eutaxy.core.errors import UserError


def payments():
    return queue("payments", [{"body": {"orderId": "o-1"}}, {"body": {"orderId": "o-2"}, "id": "late"}])


def test_queue_numbers_events_from_msg_1_and_keeps_given_ids():
    """Events are msg-1, msg-2, ... in order unless a message names its id."""
    assert {
        "kind": "queue",
        "name": "payments",
        "events": [{"id": "msg-1", "body": {"orderId": "o-1"}}, {"id": "late", "body": {"orderId": "o-2"}}],
        "batchSize": None,  # the consumer's max_batch_size
    } == payments()


def test_the_queue_drive_carries_its_batch_size_written_once():
    """queue() writes batchSize (None, the consumer's, unless asked); define_scenario writes it into a hand-written drive."""
    assert 3 == queue("payments", [{"body": 1}], batch_size=3)["batchSize"]
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(UserError, match="batch_size must be a whole number"):
            queue("payments", [{"body": 1}], batch_size=bad)
    by_hand = {"kind": "queue", "name": "payments", "events": [{"body": 1}]}
    assert None is define_scenario(name="s", drive=by_hand)["drive"]["batchSize"]
    assert 2 == define_scenario(name="s", drive={**by_hand, "batchSize": 2})["drive"]["batchSize"]
    with pytest.raises(UserError, match="batch_size must be a whole number"):
        define_scenario(name="s", drive={**by_hand, "batchSize": 0})


@pytest.mark.parametrize(
    ("messages", "problem"),
    [
        ([{"orderId": "o-1"}], "must be a dict with a body"),
        ([{"body": 1, "delay": 2}], "unknown fields delay"),
        ([], "at least one message"),
        ({"body": 1}, "must be a list"),
        ([{"body": 1, "id": "a#1"}], "without '#'"),
    ],
)
def test_queue_refuses_bad_messages(messages, problem):
    """A message without a body, with unknown fields or an id holding '#' is refused."""
    with pytest.raises(UserError, match=problem):
        queue("payments", messages)


def test_d1_schema_is_a_setup_step():
    """d1_schema is the plain setup step the runtime resets the binding with."""
    assert {"kind": "d1_schema", "binding": "DB", "path": "./schema.sql"} == d1_schema("DB", "./schema.sql")


def test_define_scenario_gives_the_contract_shape():
    """platform, root and source come from the calling file; the rest is the data given."""
    drive = payments()
    scenario = define_scenario(
        name="queue-duplicate-write",
        worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
        setup=[d1_schema("DB", "./schema.sql")],
        drive=drive,
        invariants=[
            at_most_once_per_key("once", d1_write("DB"), d1_param(0)),
            at_least_once_per_message("all", drive, d1_write("DB"), d1_param(0), "orderId"),
        ],
        bounds={"maxFaultsPerRun": 1, "max_redeliveries": 2, "budget_ms": 2000},
    )
    here = Path(os.path.abspath(__file__))
    assert "cloudflare" == scenario["platform"]
    # Under Bazel this file is a runfiles symlink with no worker.ts beside it: root is then its real folder.
    assert os.path.dirname(os.path.realpath(here)) == os.path.realpath(scenario["root"])
    assert str(here) == scenario["source"]
    assert {"maxFaultsPerRun": 1, "maxRedeliveries": 2, "budgetMs": 2000, "alarmsPerObject": 3, "afterWorkTimerLimit": 100} == scenario["bounds"]
    assert "payments" == scenario["invariants"][1]["drive"]
    assert [] == scenario["specs"]
    assert drive == scenario["drive"]


@pytest.mark.parametrize(
    ("bounds", "problem"),
    [
        ({"maxFaults": 1}, "unknown bound 'maxFaults' in bounds; did you mean 'maxFaultsPerRun'"),
        ({"max_faults_per_run": 3, "maxFualtsPerRun": 4}, "unknown bound 'maxFualtsPerRun'.*did you mean 'maxFaultsPerRun'"),
        ({"max_faults_per_run": -1}, "non-negative integer"),
        ({"budgetMs": 1.5}, "non-negative integer"),
        ({"faultProbability": 2}, "from 0 to 1"),
        ({"maxRuns": 1, "max_runs": 2}, "given twice"),
        ({"maxConcurrentInvocations": 0}, "at least 1"),
    ],
)
def test_define_scenario_refuses_bad_bounds(bounds, problem):
    """A misspelt or mistyped bound is an error, never a quietly weaker check."""
    with pytest.raises(UserError, match=problem):
        define_scenario(name="s", drive=payments(), bounds=bounds)


def test_define_scenario_refuses_a_drive_without_events():
    """The shrinker needs events, so every drive must have some."""
    with pytest.raises(UserError, match="no events"):
        define_scenario(name="s", drive={"kind": "queue", "name": "q", "events": []})


def test_define_scenario_refuses_unknown_worker_fields():
    """worker takes entry and config only."""
    with pytest.raises(UserError, match="not module"):
        define_scenario(name="s", worker={"module": "./w.ts"}, drive=payments())


def test_explicit_root_overrides_the_caller(tmp_path):
    """root= and source= let a scenario be built outside a scenario file."""
    scenario = define_scenario(name="s", drive=payments(), root=tmp_path, source=tmp_path / "s.sim.py")
    assert str(tmp_path) == scenario["root"]
    assert str(tmp_path / "s.sim.py") == scenario["source"]


def test_alarms_per_object_defaults_to_three_and_takes_either_spelling():
    """The seeds' alarmsPerObject caps how many alarms one Durable Object fires in a run: 3 unless the scenario says."""
    assert 3 == define_scenario(name="s", drive=payments())["bounds"]["alarmsPerObject"]
    assert 5 == define_scenario(name="s", drive=payments(), bounds={"alarmsPerObject": 5})["bounds"]["alarmsPerObject"]
    assert 0 == define_scenario(name="s", drive=payments(), bounds={"alarms_per_object": 0})["bounds"]["alarmsPerObject"]
    with pytest.raises(UserError, match="alarmsPerObject must be a non-negative integer"):
        define_scenario(name="s", drive=payments(), bounds={"alarmsPerObject": -1})


def test_two_invariants_with_one_name_are_refused():
    """Issue 13: Cloudflare accepted two invariants with one name; the field and a free name are named."""
    once = at_most_once_per_key("once", d1_write("DB"), d1_param(0))
    with pytest.raises(UserError) as raised:
        define_scenario(name="s", drive=payments(), invariants=[once, once])
    assert "invariants[1].name: two invariants are named 'once' (invariants[0] and invariants[1])" in str(raised.value)
    assert "'once-2'" in str(raised.value)


def test_a_per_message_invariant_must_name_the_scenarios_drive():
    """Issue 13: an at_least_once_per_message over a drive the scenario does not have is refused, nearest drive named."""
    elsewhere = at_least_once_per_message("all", "paymnts", d1_write("DB"), d1_param(0), "orderId")
    with pytest.raises(UserError, match=r"invariants\[0\]\.drive: .*drive 'paymnts'.*did you mean 'payments'"):
        define_scenario(name="s", drive=payments(), invariants=[elsewhere])


def test_a_per_message_body_key_must_be_in_every_event():
    """A bodyKey some message lacks is refused, naming the event and its nearest path."""
    drive = payments()
    lacking = at_least_once_per_message("all", drive, d1_write("DB"), d1_param(0), "order.id")
    with pytest.raises(UserError, match=r"invariants\[0\]\.bodyKey: event 'msg-1' has no body value at 'order.id'.*did you mean 'orderId'"):
        define_scenario(name="s", drive=drive, invariants=[lacking])
