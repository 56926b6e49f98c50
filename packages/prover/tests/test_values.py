"""JavaScript string lengths; the values and their encoding are tested in spec (tests/test_values.py)."""

from eutaxy.prover.values import utf16_length


def test_length_counts_utf16_units():
    """A character beyond the BMP is two units, as String.prototype.length counts it."""
    assert 0 == utf16_length("")
    assert 3 == utf16_length("a\U0001F600")
    assert 2 == utf16_length("\u00e9\uffff")
