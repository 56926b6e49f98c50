"""Walking whole-string patterns: what the walker generates from, what it refuses, and its fallback."""

import re

import pytest

from eutaxy.prover.randomness import Draws
from eutaxy.prover.regex_walk import (Refused, is_whole_string, parse, pattern_characters, plainest,
                                      sample_strings)

WALKABLE = [r"^[A-Z]{3}-\d{4}$", r"^(foo|ba[rz])+@x\.com$", r"^[^a-c]?[A-F0-9]{2,}$", r"^\w+\s?\W*$",
            r"^(?:ab|cd)*(?<tail>e|f)$", r"^a.b?c*$", r"^\u0041\x42[\-_]$"]


@pytest.mark.parametrize("pattern", WALKABLE)
def test_walked_strings_match(pattern):
    """Every walked string matches the pattern (checked here with Python's re, which agrees on these)."""
    draws = Draws.for_property("seed", pattern)
    strings = sample_strings(pattern, "", draws, 50, 8)
    assert 50 == len(strings)
    assert [] == [s for s in strings if not re.fullmatch(pattern.strip("^$").replace("?<tail>", "?P<tail>"), s)]


@pytest.mark.parametrize("pattern,why", [
    (r"^(?=a)b$", "lookaround"), (r"^(a)\1$", "backreference"), (r"^\bword$", "word boundary"),
    (r"^\p{L}+$", "property escape"),
])
def test_refused_syntax(pattern, why):
    """Lookaround, backreferences, word boundaries and property escapes are refused, naming the construct."""
    with pytest.raises(Refused, match=why):
        parse(pattern, "u")


def test_fallback_samples_the_patterns_characters():
    """A refused pattern falls back to strings over the pattern's own characters."""
    strings = sample_strings(r"^(?=x)[xy]+$", "", Draws.for_property("s", "p"), 20, 6)
    assert set("".join(strings)) <= set(pattern_characters(r"^(?=x)[xy]+$"))
    assert all(len(s) <= 6 for s in strings)


def test_plainest_and_whole_string():
    """The plainest walk takes first options and fewest repeats; only ^...$ patterns are whole-string."""
    assert "AAA-0000" == plainest(r"^[A-Z]{3}-\d{4}$", "")
    assert None is plainest(r"^(?!a)$", "")
    assert is_whole_string(r"^a+$") and not is_whole_string(r"a+$") and not is_whole_string("^a\\$")


def test_walk_is_deterministic():
    """The same stream walks the same strings."""
    one = sample_strings(r"^[a-z]+\d?$", "", Draws.for_property("s", "p"), 10, 8)
    two = sample_strings(r"^[a-z]+\d?$", "", Draws.for_property("s", "p"), 10, 8)
    assert one == two
