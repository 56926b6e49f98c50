"""Core's vector files say what core's rules say: the ladders, the redelivery rule and the
shape of the follower's vectors. The JavaScript runtime's suite reads the same files
(runtime/test/vectors.test.mjs, plan.test.mjs), so each rule is written once, here.
"""

from __future__ import annotations

import json
import pathlib

from eutaxy.core import faults, verdicts

VECTORS = pathlib.Path(verdicts.__file__).with_name("vectors")


def _load(name: str) -> dict:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


def test_the_ladder_vectors_are_core_faults():
    """Every ladder, in order, and the fault kinds are eutaxy.core.faults' constants."""
    data = _load("ladders.json")
    assert list(faults.FAULT_KINDS) == data["kinds"]
    assert list(faults.POINT_FAULTS) == data["pointFaults"]
    assert {
        "write": list(faults.WRITE_FAULTS),
        "read": list(faults.READ_FAULTS),
        "decision": list(faults.DECISION_FAULTS),
        "response": list(faults.response_faults(False)),
        "responseWithDeadline": list(faults.response_faults(True)),
        "background": list(faults.BACKGROUND_FAULTS),
        "step": list(faults.STEP_FAULTS),
        "stepResult": list(faults.STEP_RESULT_FAULTS),
        "callee": list(faults.CALLEE_FAULTS),
    } == data["ladders"]
    assert {name: list(ladder) for name, ladder in faults.RUNTIME_LADDERS.items()} == data["ladders"]
    assert {"batchWrite": list(faults.BATCH_WRITE_FAULTS)} == data["platformLadders"]


def test_the_redelivery_vectors_are_may_redeliver():
    """Each [attempts, platformLimit, maxRedeliveries, redelivered, stop] is what may_redeliver and redelivery_stop say."""
    cases = _load("redelivery.json")["cases"]
    assert {True, False} == {case[3] for case in cases}
    assert {None, faults.REDELIVERY_CUT, faults.REDELIVERY_DEAD_LETTER} == {case[4] for case in cases}
    assert None in {case[2] for case in cases}, "the vectors hold a scenario with no maxRedeliveries"
    for attempts, limit, most, redelivered, stop in cases:
        assert redelivered == faults.may_redeliver(attempts, limit, most), (attempts, limit, most)
        assert stop == faults.redelivery_stop(attempts, limit, most), (attempts, limit, most)


def test_the_follower_vectors_are_well_formed():
    """Each case's answers agree with its own decisions; ladders are core's; draws are words.

    The follower itself (engine/follower.py, runtime/plan.mjs) is checked against the file
    by engine/tests/test_follower.py and runtime/test/plan.test.mjs.
    """
    data = _load("follower.json")
    ladders = [list(ladder) for ladder in _load("ladders.json")["ladders"].values()] + [[]]
    for case in data["cases"]:
        policy = case["plan"]["policy"]
        if policy["kind"] == "seeded":
            assert all(isinstance(draw, int) and 0 <= draw < 2**32 for draw in policy["faults"].values()), case["name"]
        turns = [decision["chosen"] for decision in case["decisions"] if decision["kind"] == "turn"]
        assert turns == [a for p, a in zip(case["points"], case["answers"], strict=True) if p["kind"] == "turn"]
        for point, answer in zip(case["points"], case["answers"], strict=True):
            if point["kind"] == "fault":
                assert point["ladder"] in ladders, case["name"]
                assert answer == "none" or answer in point["ladder"], case["name"]
        assert case["faultsInjected"] == sum(1 for a in case["answers"] if isinstance(a, str) and a != "none")
