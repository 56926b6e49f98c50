"""JavaScript string lengths, for drawing strings of a length a spec names.

The values themselves, their encoding across the Node boundary and how they are
written as text belong to the spec module: :mod:`eutaxy.spec.values`.
"""

from __future__ import annotations


def utf16_length(text: str) -> int:
    """``text.length`` as JavaScript counts it: a character beyond the BMP is two UTF-16 units."""
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in text)
