"""json_problem: what a scenario may hold, and the path to what it may not."""

import pytest

from eutaxy.core.plain_data import json_problem


@pytest.mark.parametrize(
    "value",
    [None, True, 0, 2**70, 1.5, "s", [], {}, {"a": [1, {"b": None}]}, (1, 2)],
)
def test_json_data_has_no_problem(value):
    """Everything JSON writes and reads back as it was (tuples as lists) passes."""
    assert json_problem(value) is None


def test_a_value_shared_side_by_side_is_not_a_cycle():
    shared = {"a": 1}
    assert json_problem({"x": shared, "y": [shared, shared]}) is None


@pytest.mark.parametrize(
    "value, expected",
    [
        ({"tags": {1, 2}}, "body.tags: {1, 2} (set) is not JSON data; use a list"),
        ([1, float("nan")], "body[1]: nan is not a JSON number"),
        ({"n": float("inf")}, "body.n: inf is not a JSON number"),
        ({1: "a"}, "body: key 1 (int) is not a string"),
        (b"x", "body: b'x' (bytes) is not JSON data; use a string"),
        ({"odd key": object()}, "body['odd key']: "),
    ],
)
def test_the_first_problem_names_its_path(value, expected):
    assert json_problem(value, "body").startswith(expected)


def test_tuples_can_be_refused_and_cycles_are_found():
    assert "(tuple) is not JSON data" in json_problem((1,), tuples=False)
    loop: list = []
    loop.append(loop)
    assert "contains itself" in json_problem({"l": loop})
