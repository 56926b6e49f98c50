"""check_run_fit: names only a run can tell (tables, columns, key paths) are checked on the first run."""

import pytest

from eutaxy.core.effects import Effect, snapshot
from eutaxy.core.errors import UserError
from eutaxy.core.invariants import aggregate, at_most_once_per_key, in_order_per_key, unique
from eutaxy.core.run_fit import check_run_fit, payload_paths

from shapes import param, table, writes_to

WRITE = Effect(
    target="D1:DB", op="run", kind="result", invocation="msg-1#1", ordinal=0, time=1,
    payload={"args": {"sql": "INSERT", "params": ["o-1", 5]}, "result": {"changes": 1}, "statement": "write"},
)
LOG = [WRITE, snapshot("D1:DB", "payments", [{"order_id": "o-1"}], 2)]


def test_names_the_run_has_fit():
    check_run_fit(
        [at_most_once_per_key("once", writes_to("DB"), param(1)), unique("u", table("payments"), "order_id")],
        LOG,
    )


@pytest.mark.parametrize(
    "invariant, words",
    [
        (unique("u", table("paymnts"), "order_id"), ["table 'paymnts'", "did you mean 'payments'"]),
        (unique("u", table("payments"), "orderId"), ["column 'orderId'", "did you mean 'order_id'"]),
        (at_most_once_per_key("once", writes_to("DB"), param(2)), ["key 'args.params.2'", "args.params.1"]),
        (in_order_per_key("fifo", writes_to("DB"), param(0), param(3)), ["sequenceKey 'args.params.3'"]),
        (in_order_per_key("fifo", writes_to("DB"), "args.customer", param(1)), ["groupKey 'args.customer'"]),
        (aggregate("quota", table("payments"), "size", "sum", "lte", 5), ["column 'size'"]),
        (aggregate("per", table("payments"), "order_id", "count", "lte", 1, group_by="orderId"), ["column 'orderId'"]),
    ],
)
def test_a_misfit_names_the_nearest_real_names(invariant, words):
    with pytest.raises(UserError) as raised:
        check_run_fit([invariant], LOG)
    assert all(word in str(raised.value) for word in words), str(raised.value)


def test_what_the_run_cannot_tell_is_not_refused():
    """No snapshot of the target, no effect selected, or no rows: nothing to compare with."""
    check_run_fit([unique("u", table("t", "OTHER"), "c")], LOG)
    check_run_fit([at_most_once_per_key("once", writes_to("OTHER"), "args.x")], LOG)
    check_run_fit([unique("u", table("empty"), "c")], [snapshot("D1:DB", "empty", [], 1)])


def test_payload_paths_lists_every_leaf():
    assert ["args.sql", "args.params.0", "args.params.1", "result.changes", "statement"] == payload_paths(WRITE.payload)
