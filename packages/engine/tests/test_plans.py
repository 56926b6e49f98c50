"""Plans, streams, event restriction and the schedule a run took."""

import json
import pathlib

import pytest

from eutaxy.core import verdicts
from eutaxy.core.prng import seed_words
from eutaxy.core.protocol import Decision, RunResult
from eutaxy.core.schedule import BatchAt, FaultAt, Schedule
from eutaxy.core.errors import UserError
from eutaxy.engine.bounds import EFFECT_HANG_MS_DEFAULT, resolve_bounds, with_bounds
from eutaxy.engine.plans import event_ids, event_of_invocation, replay_plan, restrict_events, run_streams, schedule_of


def test_restricting_events_keeps_their_ids():
    """Removing msg-1 leaves msg-2 named msg-2, so its invocations keep their ids."""
    scenario = {"drive": {"kind": "queue", "events": [{"body": 1}, {"body": 2}, {"id": "own", "body": 3}]}}
    assert ["msg-1", "msg-2", "own"] == event_ids(scenario)
    restricted = restrict_events(scenario, ["own", "msg-2"])
    assert [{"id": "msg-2", "body": 2}, {"id": "own", "body": 3}] == restricted["drive"]["events"]
    assert 3 == len(scenario["drive"]["events"])  # the original is untouched
    assert ["req-1"] == event_ids({"drive": {"kind": "http", "events": [{"body": None}]}})


def test_streams_share_the_globals_and_vary_the_turns():
    assert run_streams("s", 0)["globals"] == run_streams("s", 5)["globals"] == seed_words("s", "globals")
    assert seed_words("s", "turns") == run_streams("s", 0)["turns"]
    assert seed_words("s", "turns/5") == run_streams("s", 5)["turns"]


def test_a_runs_schedule_is_its_injected_faults_and_every_turn_pick():
    fault = lambda chosen, ordinal: Decision(
        kind="fault", options=("none", "crash_after"), chosen=chosen, invocation="msg-1#1", ordinal=ordinal, target="T"
    )
    turn = lambda chosen: Decision(kind="turn", options=({"kind": "timer"}, {"kind": "time"}), chosen=chosen)
    result = RunResult(eligible=2, decisions=(turn(1), fault(0, 0), turn(0), fault(1, 1)))
    assert Schedule(faults=(FaultAt("msg-1#1", 1, "crash_after"),), turns=(1, 0)) == schedule_of(result)


def test_a_replay_plan_never_hides_a_fault_behind_the_bound():
    schedule = Schedule(faults=(FaultAt("msg-1#1", 0, "error"), FaultAt("msg-2#1", 0, "error")))
    plan = replay_plan({"drive": {"kind": "queue", "events": []}}, "s", schedule, max_faults=1, max_short_batches=0)
    assert 2 == plan.max_faults
    assert "replay" == plan.to_data()["policy"]["kind"]


def test_a_replay_plan_never_hides_a_short_batch_behind_the_bound():
    """A schedule's short batches all replay, whatever the session's maxShortBatches."""
    schedule = Schedule(batches=(BatchAt("msg-1#1", 1), BatchAt("msg-3#1", 2)))
    plan = replay_plan({"drive": {"kind": "queue", "events": []}}, "s", schedule, max_faults=1, max_short_batches=0)
    assert 2 == plan.max_short_batches
    assert [{"invocation": "msg-1#1", "size": 1}, {"invocation": "msg-3#1", "size": 2}] == plan.to_data()["policy"]["batches"]


def test_the_schedule_of_a_run_lists_its_short_batches_only():
    """A batch decision that took the platform's batch (option 0) is no part of the schedule."""
    def batch(invocation: str, chosen: int) -> Decision:
        return Decision(kind="batch", options=(3, 1, 2), chosen=chosen, invocation=invocation, target="Queue:q")

    result = RunResult(decisions=(batch("msg-1#1", 0), batch("msg-2#1", 2)))
    assert Schedule(batches=(BatchAt("msg-2#1", 2),)) == schedule_of(result)


def test_bounds_have_defaults_and_the_callers_overrides():
    bounds = resolve_bounds({"bounds": {"maxFaultsPerRun": 3, "maxRuns": 9}}, budget_ms=50)
    assert {
        "maxFaultsPerRun": 3, "maxConcurrentInvocations": 1,
        "budgetMs": 50, "faultProbability": 0.9, "maxRuns": 9, "producedMessagesMax": 100, "effectHangMs": 10_000,
    } == bounds.to_data()
    # No maxRedeliveries unless the scenario sets one: each queue redelivers up to its platform's limit.
    assert None is bounds.max_redeliveries
    assert 2 == resolve_bounds({"bounds": {"maxRedeliveries": 2}}).to_data()["maxRedeliveries"]
    # A plan still carries it, as null, so a runtime tells "none set" from a plan that lost the field.
    planned = with_bounds({"drive": {}}, bounds)["bounds"]
    assert "maxRedeliveries" in planned and planned["maxRedeliveries"] is None
    assert 4 == resolve_bounds({"bounds": {"maxRuns": 9}}, max_runs=4).max_runs
    assert 7 == resolve_bounds({"bounds": {"producedMessagesMax": 7}}).produced_messages_max


def test_an_invocation_belongs_to_the_input_event_it_descends_from():
    """A message the run produced carries its producer's invocation id: removing the input event removes it."""
    assert "msg-1" == event_of_invocation("msg-1#2")
    assert "req-1" == event_of_invocation("req-1#1/sent-2#3")
    assert "req-1" == event_of_invocation("req-1#2/sent-1#1/sent-1#1")


PRODUCED_IDS = json.loads((pathlib.Path(verdicts.__file__).with_name("vectors") / "produced_ids.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", PRODUCED_IDS["cases"], ids=[case[2] for case in PRODUCED_IDS["cases"]])
def test_a_produced_message_descends_from_the_input_event_core_s_vectors_name(case):
    """The runtime writes the ids (producer.mjs producedMessageId, held to the same file); every delivery belongs to the input event."""
    _producer, _n, message_id, event = case
    assert event == event_of_invocation(f"{message_id}#1")
    assert event == event_of_invocation(f"{message_id}#3")


def test_plans_carry_the_effect_hang_bound_apart_from_the_budget():
    """effectHangMs is its own bound: 10 s unless the scenario sets it, whatever the budget; plans and provenance carry it."""
    for budget_ms in (0, 750, 300_000):
        resolved = resolve_bounds({"bounds": {"budgetMs": budget_ms}})
        assert EFFECT_HANG_MS_DEFAULT == with_bounds({"drive": {}}, resolved)["bounds"]["effectHangMs"]
        assert budget_ms == with_bounds({"drive": {}}, resolved)["bounds"]["budgetMs"]
        assert EFFECT_HANG_MS_DEFAULT == resolved.to_data()["effectHangMs"]
    given = resolve_bounds({"bounds": {"budgetMs": 750, "effectHangMs": 30_000}})
    assert 30_000 == with_bounds({"drive": {}}, given)["bounds"]["effectHangMs"]
    with pytest.raises(UserError, match="effectHangMs must be an integer of at least 1"):
        resolve_bounds({"bounds": {"effectHangMs": 0}})
