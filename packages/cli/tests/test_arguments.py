"""The shared argument types: one reading and one set of words for every number flag."""

import argparse

import pytest

from eutaxy.cli.arguments import budget_ms, max_runs, whole_number
from eutaxy.engine.bounds import BUDGET_MS_MAX, RUNS_MAX


def test_a_whole_number_above_zero_reads_as_itself():
    """Digits above 0 and up to the maximum come back as the int."""
    assert (1, 7, RUNS_MAX) == (whole_number("1"), whole_number("7", 7), max_runs(str(RUNS_MAX)))


@pytest.mark.parametrize(
    ("text", "maximum", "words"),
    [
        ("2s", None, "expected a whole number above 0, got '2s'"),
        ("0", None, "expected a whole number above 0, got 0"),
        ("-3", 10, "expected a whole number above 0, got -3"),
        ("11", 10, "expected a number of at most 10, got 11"),
    ],
)
def test_a_bad_number_is_refused_naming_what_was_expected_and_what_came(text, maximum, words):
    """Text that is not a number, 0 or less, and above the maximum each say so."""
    with pytest.raises(argparse.ArgumentTypeError) as error:
        whole_number(text, maximum)
    assert words == str(error.value)


def test_budget_and_runs_stop_at_the_engines_maxima():
    """--budget-ms and --max-runs (and the pytest plugin's twins) refuse one past the engine's limit."""
    for read, maximum in ((budget_ms, BUDGET_MS_MAX), (max_runs, RUNS_MAX)):
        assert maximum == read(str(maximum))
        with pytest.raises(argparse.ArgumentTypeError, match=f"at most {maximum}"):
            read(str(maximum + 1))
