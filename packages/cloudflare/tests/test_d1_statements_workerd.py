"""D1 effects are classified by what their statement does, on real workerd.

An ORM's ``INSERT ... RETURNING *`` sent through ``.all()`` is a write that ``d1_write()``
selects; a ``SELECT`` sent through ``.run()`` is a read that ``d1_read()`` selects. A
selector that names the old ops only (``run``/``batch``) matches nothing, and the check
refuses to call that BOUNDED (``vacuous_invariant``).
"""

from pathlib import Path

import pytest

from eutaxy.cloudflare import at_most_once_per_key, d1_param, d1_read, d1_schema, d1_write, define_scenario, queue
from eutaxy.core.selectors import matches
from eutaxy.engine.check import check_scenario
from workerd_support import fault_free, results_at, running

FIXTURE = Path(__file__).resolve().parent / "returning"

pytestmark = pytest.mark.usefixtures("toolchain")


def _scenario(selector):
    return define_scenario(
        name="returning",
        root=FIXTURE,
        source=FIXTURE / "returning.sim.py",
        worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
        setup=[d1_schema("DB", "./schema.sql")],
        drive=queue("orders", [{"body": {"orderId": "o-1"}}]),
        invariants=[at_most_once_per_key("order-recorded-once", selector, d1_param(0))],
        bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )


@pytest.fixture(scope="module")
def returning():
    yield from running(_scenario(d1_write("DB")))


def test_insert_returning_through_all_is_a_write_and_select_through_run_a_read(returning):
    result = fault_free(*returning, "returning")
    effects = results_at(result, "D1:DB")
    assert [("all", "write"), ("run", "read")] == [(e.op, e.payload["statement"]) for e in effects]
    assert [True, False] == [matches(d1_write("DB"), e) for e in effects]
    assert [False, True] == [matches(d1_read("DB"), e) for e in effects]


def test_a_selector_of_the_old_ops_is_vacuous_not_bounded(returning):
    _, platform = returning
    scenario = _scenario({**d1_write("DB"), "op": ["run", "batch"]})
    verdict = check_scenario(scenario, platform, max_runs=3, module_state_runs=0)
    assert "unsupported" == verdict["kind"]
    assert "vacuous_invariant" == verdict["cause"]["kind"]
    detail = verdict["cause"]["detail"]
    assert "order-recorded-once" in detail and "D1:DB all result (same target, other op)" in detail
    bounded = check_scenario(_scenario(d1_write("DB")), platform, max_runs=1, module_state_runs=0)
    assert "bounded" == bounded["kind"]
    assert [{"name": "order-recorded-once", "kind": "at_most_once_per_key", "effects": 1, "rows": 0, "keys": 1, "runs": 1}] == bounded["invariants"]
    # No Durable Object of the Worker's own: no alarm or after-work bound is stated.
    assert not {"alarmsPerObject", "afterWorkTimerLimit"} & set(bounded["provenance"]["bounds"])
