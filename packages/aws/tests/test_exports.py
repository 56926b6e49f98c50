"""The public surface of eutaxy.aws: every name in __all__ exists, and the contract's names are there."""

import eutaxy.aws


def test_all_lists_real_names():
    for name in eutaxy.aws.__all__:
        assert hasattr(eutaxy.aws, name), name


def test_the_contracts_entry_points_and_helpers_are_exported():
    for name in ("define_scenario", "sqs", "dynamodb_table", "handler", "dynamodb_write", "dynamodb_read",
                 "dynamodb_rows", "create_platform", "expect_holds", "at_most_once_per_key", "unique",
                 "at_least_once_per_message", "in_order_per_key", "min_interval_per_key", "max_interval_per_key",
                 "aggregate"):
        assert name in eutaxy.aws.__all__, name
