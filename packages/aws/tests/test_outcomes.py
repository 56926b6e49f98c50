"""Outcome counts on AWS: a pass needs a handler that worked at least once in a fault-free run.

Each scenario's only invariant is over a seeded table the handler never changes, so it holds
in every run; what keeps the check from calling that BOUNDED is the outcome of each invocation.
"""

from eutaxy.aws import create_platform, define_scenario, dynamodb_rows, dynamodb_table, handler, sqs, unique
from eutaxy.engine.check import check_scenario

#: One seeded row, so the state invariant reads something and is not vacuous.
_SEEDED = [{"id": "seed-1"}]


def _check(scenario, seed):
    with create_platform(scenario) as platform:
        return check_scenario(scenario, platform, seed=seed, max_runs=6, budget_ms=600_000)


def _needs_env(**options):
    return define_scenario(
        name="needs-env",
        handler=handler("./handlers/needs_env.py"),
        drive=sqs("orders", [{"id": "o-1"}, {"id": "o-2"}], max_receive_count=2),
        setup=[dynamodb_table("items", {"id": "HASH"}, items=_SEEDED)],
        invariants=[unique("one-row-per-id", dynamodb_rows("items"), "id")],
        **options,
    )


def test_a_handler_raising_on_every_call_is_unsupported_handler_never_succeeded():
    """A missing environment variable: every invocation raises, so the state invariant's pass claims nothing."""
    verdict = _check(_needs_env(), "needs-env")
    assert ("unsupported", "handler_never_succeeded") == (verdict["kind"], verdict["cause"]["kind"])
    detail = verdict["cause"]["detail"]
    assert "no invocation of the sqs drive returned normally" in detail
    assert detail.startswith("the handler failed: KeyError: 'ORDERS_TABLE' (at handlers/needs_env.py:16), first in msg-1#1; ")
    assert "expect_failures=True" in detail
    [counts] = verdict["outcomes"]
    assert ("sqs", 0, False) == (counts["drive"], counts["returned"], counts["succeededFaultFree"])
    assert counts["threw"] > 0
    error = {"name": "KeyError", "message": "'ORDERS_TABLE'", "at": "handlers/needs_env.py:16"}
    assert {"invocation": "msg-1#1", "run": 0, "error": error} == counts["firstError"]


def test_expect_failures_lets_a_handler_meant_to_fail_pass():
    """expect_failures=True: the same check is BOUNDED, and the verdict still counts every failure."""
    verdict = _check(_needs_env(expect_failures=True), "needs-env")
    assert "bounded" == verdict["kind"], verdict.get("cause")
    [counts] = verdict["outcomes"]
    assert 0 == counts["returned"]
    assert counts["threw"] > 0
    assert counts["deadLettered"] > 0


def test_a_handler_whose_every_message_is_dead_lettered_is_unsupported_handler_never_succeeded():
    """It returns normally, but reports every message failed: each is dead-lettered, none handled."""
    scenario = define_scenario(
        name="rejects-all",
        handler=handler("./handlers/rejects_all.py"),
        drive=sqs("orders", [{"id": "o-1"}], max_receive_count=2),
        setup=[dynamodb_table("items", {"id": "HASH"}, items=_SEEDED)],
        invariants=[unique("one-row-per-id", dynamodb_rows("items"), "id")],
    )
    verdict = _check(scenario, "rejects-all")
    assert ("unsupported", "handler_never_succeeded") == (verdict["kind"], verdict["cause"]["kind"])
    [counts] = verdict["outcomes"]
    assert counts["retriedAll"] == counts["returned"] > 0
    assert counts["deadLettered"] > 0
    assert "returned but asked for all their messages again" in verdict["cause"]["detail"]
