"""Outcome counts and host-free stacks on real workerd.

The fixture's consumer throws on every delivery (a variable its config never sets) after
logging the error's stack, and its only invariant is over a seeded table nothing changes,
so it holds in every run. The check must not call that BOUNDED (``handler_never_succeeded``)
unless the scenario expects failures; and nothing of the host (the bundle under /dev/shm, a
pid) may reach the verdict, so two checks, each with its own host, give the same bytes.
"""

from pathlib import Path

import pytest

from eutaxy.cloudflare import create_platform, d1_rows, d1_schema, queue, unique
from eutaxy.core.canonical import to_json
from eutaxy.engine.check import check_scenario
from worker_project import scenario_in

FIXTURE = Path(__file__).resolve().parent / "failing"
#: Where the fixture throws, as its own source names it.
THROWN_AT = "src/index.ts:12"

pytestmark = pytest.mark.usefixtures("toolchain")


def _scenario(**options):
    return scenario_in(
        FIXTURE, "failing",
        worker={"config": "./wrangler.jsonc"},
        setup=[d1_schema("DB", "./schema.sql")],
        drive=queue("orders", [{"body": {"orderId": "o-1"}}]),
        invariants=[unique("one-row-per-order", d1_rows("DB", "orders"), "order_id")],
        bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 1, "budgetMs": 120_000},
        **options,
    )


def _check(scenario):
    with create_platform(scenario) as platform:
        return check_scenario(scenario, platform, max_runs=4, budget_ms=600_000)


def test_a_consumer_throwing_on_every_delivery_is_unsupported_handler_never_succeeded():
    """Every delivery throws, so the state invariant's pass would claim nothing: exit 2, naming the error and its line."""
    verdict = _check(_scenario())
    assert ("unsupported", "handler_never_succeeded") == (verdict["kind"], verdict["cause"]["kind"])
    assert verdict["cause"]["detail"].startswith(f"the handler failed: TypeError: API_BASE is not set (at {THROWN_AT}), first in msg-1#1; ")
    [counts] = verdict["outcomes"]
    assert ("queue", 0, False) == (counts["drive"], counts["returned"], counts["succeededFaultFree"])
    assert counts["threw"] > 0 and counts["deadLettered"] > 0
    assert {"name": "TypeError", "message": "API_BASE is not set", "at": THROWN_AT} == counts["firstError"]["error"]


def test_expect_failures_passes_and_two_checks_give_the_same_bytes_naming_the_workers_own_line():
    """expect_failures=True is BOUNDED; the logged e.stack names src/index.ts, never the host's bundle path."""
    first = _check(_scenario(expect_failures=True))
    second = _check(_scenario(expect_failures=True))
    assert "bounded" == first["kind"], first.get("cause")
    assert to_json(first) == to_json(second)
    text = to_json(first)
    for host_specific in ("/dev/shm", "eutaxy-host-", "worker.bundle.mjs", str(FIXTURE)):
        assert host_specific not in text
    stack = [line["text"] for line in first["firstRunConsole"] if line["level"] == "error"][0]
    assert stack.startswith("TypeError: API_BASE is not set\n")
    assert f"{THROWN_AT}:" in stack
    # Eutaxy's own frames (the runtime that called the handler) are dropped.
    assert "runtime/" not in stack and "queue.mjs" not in stack
