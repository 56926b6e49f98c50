"""Bounds are cuts, never semantics, on SQS (issue 27): maxReceiveCount 5, and a job that
succeeds on its fourth receive.

With no maxRedeliveries the queue's own redrive policy decides (maxReceiveCount - 1
redeliveries), as on AWS: the fourth receive happens and the check is BOUNDED with no cut.
With maxRedeliveries 2 the run stops after the third receive: the message is cut, neither
dead-lettered nor lost, so the verdict is BOUNDED with the cut named, never VIOLATED.
"""

from eutaxy.aws import (
    at_least_once_per_message,
    create_platform,
    define_scenario,
    dynamodb_table,
    dynamodb_write,
    handler,
    message,
    sqs,
)
from eutaxy.engine.check import check_scenario, replay_scenario


def _scenario(bounds, *, fifo=False):
    # One message per invocation, so the fast job's success is an invocation of its own.
    bodies = [{"jobId": "j-1", "slow": True}, {"jobId": "j-2"}]
    if fifo:
        fifo_messages = [message(body, group_id="g", deduplication_id=body["jobId"]) for body in bodies]
        drive = sqs("jobs.fifo", fifo_messages, max_receive_count=5, batch_size=1)
    else:
        drive = sqs("jobs", bodies, max_receive_count=5, batch_size=1)
    return define_scenario(
        name="sqs-cuts",
        handler=handler("./handlers/slow_job.py"),
        drive=drive,
        setup=[dynamodb_table("jobs", {"job_id": "HASH"})],
        invariants=[at_least_once_per_message("every-job", drive, dynamodb_write("jobs"), "args.Item.job_id", "jobId")],
        bounds=bounds,
    )


def _check(scenario, runs):
    with create_platform(scenario) as platform:
        return check_scenario(scenario, platform, seed="sqs-cuts", max_runs=runs, budget_ms=600_000)


def test_with_no_max_redeliveries_the_fourth_receive_happens_and_the_check_is_bounded():
    verdict = _check(_scenario({"maxFaultsPerRun": 0}), 3)
    assert "bounded" == verdict["kind"], verdict.get("violation") or verdict.get("cause")
    provenance = verdict["provenance"]
    assert "cuts" not in provenance and "undetermined" not in provenance
    assert "maxRedeliveries" not in provenance["boundsReached"]


def test_max_redeliveries_two_cuts_the_message_and_the_check_is_bounded_naming_the_cut():
    verdict = _check(_scenario({"maxRedeliveries": 2}), 8)
    assert "bounded" == verdict["kind"], verdict.get("violation") or verdict.get("cause")
    provenance = verdict["provenance"]
    assert "maxRedeliveries" in provenance["boundsReached"]
    [count] = provenance["cuts"]
    assert ("maxRedeliveries", 2, 4, ["SQS:jobs"], ["msg-1"]) == (
        count["bound"], count["limit"], count["platformLimit"], count["where"], count["left"]
    )
    assert count["runs"] == provenance["runs"]
    assert 0 == verdict["outcomes"][0].get("deadLettered", 0)


def test_on_a_fifo_queue_the_cut_names_the_group_behind_it():
    """The cut message holds its group back: msg-2 was never received, and the cut says so."""
    scenario = _scenario({"maxRedeliveries": 2, "maxFaultsPerRun": 0}, fifo=True)
    with create_platform(scenario) as platform:
        result = replay_scenario(scenario, platform, {"faults": [], "turns": []}, seed="sqs-cuts")["result"]
    [cut] = result["cuts"]
    assert {"bound": "maxRedeliveries", "where": "SQS:jobs.fifo", "invocation": "msg-1#3", "left": ["msg-1"],
            "limit": 2, "platformLimit": 4, "behind": ["msg-2"]} == cut
