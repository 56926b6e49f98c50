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


@pytest.mark.parametrize("value, expected", [
    ({"n": 2**53 - 1, "m": -(2**53 - 1)}, None),
    ({"n": 2**53}, "body.n: 9007199254740992 is beyond 2^53 - 1"),
    ({"items": [1, -(2**53)]}, "body.items[1]: -9007199254740992 is beyond 2^53 - 1"),
])
def test_integers_javascript_would_round_are_refused_when_asked(value, expected):
    problem = json_problem(value, "body", safe_integers=True)
    if expected is None:
        assert problem is None
    else:
        assert problem is not None and problem.startswith(expected), problem
        assert problem.endswith("JSON numbers above 2^53 lose precision in JavaScript; pass a string")
    assert json_problem(value, "body") is None  # Python reads them exactly
