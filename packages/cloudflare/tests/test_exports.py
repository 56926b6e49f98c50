"""The public surface: what a scenario file imports from eutaxy.cloudflare."""

import eutaxy.cloudflare as cloudflare
from eutaxy.cloudflare import selectors
from eutaxy.core import invariants


def test_every_name_in_all_is_importable():
    """__all__ lists only names the package really has."""
    missing = [name for name in cloudflare.__all__ if not hasattr(cloudflare, name)]
    assert [] == missing


def test_the_seeds_helpers_are_exported():
    """The helpers the seeds' first scenario uses, in snake_case, are all here."""
    wanted = {
        "define_scenario", "queue", "d1_schema", "d1_write", "d1_read", "d1_param", "d1_rows", "queue_ack",
        "at_most_once_per_key", "at_least_once_per_message", "at_least_once", "every_row", "unique",
        "implies", "references", "refines", "in_order_per_key", "min_interval_per_key", "max_interval_per_key",
        "aggregate", "create_platform", "expect_holds", "load_scenario",
    }
    assert set() == wanted - set(cloudflare.__all__)


def test_selectors_and_invariants_have_one_definition():
    """The Workers selectors are this package's own module's, the invariants core's: re-exports, not copies."""
    assert selectors.d1_write is cloudflare.d1_write
    assert invariants.at_most_once_per_key is cloudflare.at_most_once_per_key
    assert invariants.in_order_per_key is cloudflare.in_order_per_key
    assert invariants.aggregate is cloudflare.aggregate
