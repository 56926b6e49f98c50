"""Corpus gate for the agent-room-lost-update planted bug (issue 31, Agents over WebSockets, calls entering one object concurrently).

Two WebSocket connections to one Agents SDK chat room each send a message. The buggy room reads
its next sequence number from its state, awaits a moderation check (an outbound fetch: the
room's input gate is open, so the other connection's message enters there), then stores the
message under that number and moves its state on: two messages share a number. It must be
caught with faults allowed (one per run) and none kept, by the order of the turns alone
(VIOLATED on one-message-per-seq), seeded and with ``--exhaustive``; its regression test must fail on it and pass on the fixed twin (the
number taken and the state moved on with nothing awaited between), which stays BOUNDED, and
the enumeration over the twin runs every schedule the seeded exploration's schedule tree saw.
"""

from pathlib import Path

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case, seed_of

from eutaxy.cloudflare import create_platform
from eutaxy.engine.check import check_scenario
from eutaxy.engine.scenario_file import import_scenario

HERE = Path(__file__).resolve().parent
BUGGY = HERE / "agent-room-lost-update.sim.py"
FIXED = HERE / "fixed" / "agent-room-lost-update-fixed.sim.py"

#: A cap, so the verdict is the same on any machine: above the twin's 349 schedules with one
#: fault per run (a lost upgrade answer, a crash reset disconnecting the room's sockets among them).
RUNS_MAX = 400


def _check_exhaustively(path):
    scenario = import_scenario(path)
    with create_platform(scenario) as platform:
        return check_scenario(scenario, platform, seed=seed_of(path), exhaustive=True, max_runs=RUNS_MAX, budget_ms=600_000)


def _assert_two_messages_share_a_number_with_no_fault(verdict):
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "one-message-per-seq" == verdict["violation"]["invariant"]
    assert [] == verdict["schedule"]["faults"]
    assert any(verdict["schedule"]["turns"]), verdict["schedule"]


def test_buggy_room_is_violated_by_the_order_of_turns_alone():
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    _assert_two_messages_share_a_number_with_no_fault(verdict)
    assert {"ada", "ada.1", "bob", "bob.1"} == set(verdict["keptEvents"])
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def test_exhaustive_finds_the_buggy_room_too():
    _assert_two_messages_share_a_number_with_no_fault(_check_exhaustively(BUGGY))


def test_fixed_twin_is_bounded_and_the_enumeration_runs_what_the_schedule_tree_saw():
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)
    exhaustive = _check_exhaustively(FIXED)
    assert "bounded" == exhaustive["kind"], exhaustive.get("cause") or exhaustive.get("violation")
    # The Agent reads the clock in its turns, so none of them commutes with another (the reduction
    # stays on): every schedule the seeded exploration's tree saw, once.
    assert {"completed": True, "schedules": verdict["provenance"]["schedules"], "reduction": True} == exhaustive["exhaustive"]
