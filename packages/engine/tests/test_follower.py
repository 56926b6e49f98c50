"""engine/follower.py answers core's follower vectors, as runtime/plan.mjs does.

Each vector is a plan and the points a run reaches in order; the follower must give the
same answers, record the same decisions and count the same eligible points, injected
faults and misalignments. The JavaScript suite (packages/cloudflare/runtime/test/
plan.test.mjs) reads the same file, so the two followers cannot drift apart unseen.
"""

from __future__ import annotations

import json
import pathlib
import re

import pytest

from eutaxy.core import verdicts
from eutaxy.engine.follower import PlanFollower

VECTORS = json.loads((pathlib.Path(verdicts.__file__).with_name("vectors") / "follower.json").read_text(encoding="utf-8"))


def _follow(plan: dict, points: list[dict]) -> tuple[PlanFollower, list]:
    follower = PlanFollower.from_plan(plan)
    answers = []
    for point in points:
        if point["kind"] == "fault":
            answers.append(follower.fault(point["invocation"], point["ordinal"], point["target"], point["ladder"]) or "none")
        elif point["kind"] == "batch":
            answers.append(follower.batch(point["invocation"], point["target"], point["count"]))
        else:
            answers.append(follower.turn(point["options"])["chosen"])
    return follower, answers


@pytest.mark.parametrize("case", VECTORS["cases"], ids=[case["name"] for case in VECTORS["cases"]])
def test_the_follower_answers_each_vector(case):
    """Answers, decisions, eligible points, injected faults and misalignments match."""
    follower, answers = _follow(case["plan"], case["points"])
    assert case["answers"] == answers
    assert case["decisions"] == follower.decisions
    assert case["eligible"] == follower.eligible
    assert case["faultsInjected"] == follower.faults_injected
    assert case["misaligned"] == follower.misaligned
    # The runtime counts no misalignment; it is read off the decisions the same way.
    prefix = case["plan"].get("prefix") or []
    assert case["misaligned"] == sum(1 for i, d in enumerate(follower.decisions[: len(prefix)]) if d["chosen"] != prefix[i])


@pytest.mark.parametrize("refused", VECTORS["refused"], ids=[r["name"] for r in VECTORS["refused"]])
def test_the_follower_refuses_each_refused_plan(refused):
    """A malformed plan, or one missing a field the follower reads, is refused naming what is wrong."""
    with pytest.raises(ValueError, match=re.escape(refused["names"])):
        PlanFollower.from_plan(refused["plan"])


def test_a_plan_without_max_faults_fails_loudly():
    """A missing maxFaults is an internal error naming it, never a run with no faults that says BOUNDED."""
    plan = {"prefix": [], "policy": {"kind": "first"}, "maxShortBatches": 0, "streams": {"turns": [1, 0, 0, 0]}}
    with pytest.raises(ValueError, match="plan: maxFaults is missing"):
        PlanFollower.from_plan(plan)
    assert any("maxFaults" not in refused["plan"] for refused in VECTORS["refused"])


def test_the_vectors_cover_every_policy_and_every_decision_kind():
    """A vector file that lost a policy, the turn or the batch decisions would pass vacuously."""
    policies = {case["plan"]["policy"]["kind"] for case in VECTORS["cases"]}
    kinds = {point["kind"] for case in VECTORS["cases"] for point in case["points"]}
    assert {"seeded", "replay", "first"} == policies
    assert {"fault", "turn", "batch"} == kinds
    assert any(d["kind"] == "batch" and d["chosen"] != 0 for case in VECTORS["cases"] for d in case["decisions"])
    assert any(case["plan"].get("prefix") for case in VECTORS["cases"])
