"""check_run_fit: names only a run can tell (tables, columns, key paths) are checked on the first run."""

import pytest

from eutaxy.core.effects import Effect, snapshot
from eutaxy.core.errors import UserError
from eutaxy.core.invariants import at_most_once_per_key, unique
from eutaxy.core.run_fit import check_run_fit, payload_paths
from eutaxy.core.selectors import d1_param, d1_rows, d1_write

WRITE = Effect(
    target="D1:DB", op="run", kind="result", invocation="msg-1#1", ordinal=0, time=1,
    payload={"args": {"sql": "INSERT", "params": ["o-1", 5]}, "result": {"changes": 1}, "statement": "write"},
)
LOG = [WRITE, snapshot("D1:DB", "payments", [{"order_id": "o-1"}], 2)]


def test_names_the_run_has_fit():
    check_run_fit(
        [at_most_once_per_key("once", d1_write("DB"), d1_param(1)), unique("u", d1_rows("DB", "payments"), "order_id")],
        LOG,
    )


@pytest.mark.parametrize(
    "invariant, words",
    [
        (unique("u", d1_rows("DB", "paymnts"), "order_id"), ["table 'paymnts'", "did you mean 'payments'"]),
        (unique("u", d1_rows("DB", "payments"), "orderId"), ["column 'orderId'", "did you mean 'order_id'"]),
        (at_most_once_per_key("once", d1_write("DB"), d1_param(2)), ["key 'args.params.2'", "args.params.1"]),
    ],
)
def test_a_misfit_names_the_nearest_real_names(invariant, words):
    with pytest.raises(UserError) as raised:
        check_run_fit([invariant], LOG)
    assert all(word in str(raised.value) for word in words), str(raised.value)


def test_what_the_run_cannot_tell_is_not_refused():
    """No snapshot of the target, no effect selected, or no rows: nothing to compare with."""
    check_run_fit([unique("u", d1_rows("OTHER", "t"), "c")], LOG)
    check_run_fit([at_most_once_per_key("once", d1_write("OTHER"), "args.x")], LOG)
    check_run_fit([unique("u", d1_rows("DB", "empty"), "c")], [snapshot("D1:DB", "empty", [], 1)])


def test_payload_paths_lists_every_leaf():
    assert ["args.sql", "args.params.0", "args.params.1", "result.changes", "statement"] == payload_paths(WRITE.payload)
