"""Seeded streams: xoshiro128** over 32-bit words, seeded from SHA-256 of the seed text.

The same generator runs in the JavaScript runtime; Python derives each stream's four
state words and sends them in the run plan, so both sides draw identical values.
``prng_vectors.json`` beside this module pins the outputs for both test suites.
"""

from __future__ import annotations

import hashlib
import struct

__all__ = ["MASK32", "STREAM_NAMES", "Xoshiro128", "seed_words", "stream"]

MASK32 = 0xFFFFFFFF

#: The derived streams a check uses.
STREAM_NAMES = ("faults", "globals", "turns", "plan")


def seed_words(seed: str, name: str | None = None) -> tuple[int, int, int, int]:
    """The state words of the stream for ``seed`` (or its derived stream ``name``).

    SHA-256 of the UTF-8 of ``seed`` (or of ``seed + "/" + name``); the first 16 bytes as
    four little-endian uint32s. xoshiro's all-zero state is a fixed point, so it is
    replaced by ``(1, 0, 0, 0)``.
    """
    text = seed if name is None else seed + "/" + name
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    words = struct.unpack("<4I", digest[:16])
    if words == (0, 0, 0, 0):
        return (1, 0, 0, 0)
    return words


def _rotl(value: int, shift: int) -> int:
    return ((value << shift) | (value >> (32 - shift))) & MASK32


class Xoshiro128:
    """xoshiro128** 1.1 (Blackman and Vigna). Mutable: each draw advances the state."""

    __slots__ = ("_s",)

    def __init__(self, words: tuple[int, int, int, int] | list[int]) -> None:
        state = [int(word) for word in words]
        if len(state) != 4 or any(not 0 <= word <= MASK32 for word in state):
            raise ValueError(f"xoshiro128** needs four uint32 words, got {words!r}")
        if state == [0, 0, 0, 0]:
            raise ValueError("xoshiro128** cannot start from the all-zero state")
        self._s = state

    @property
    def words(self) -> tuple[int, int, int, int]:
        """The current state, as sent in a run plan."""
        s = self._s
        return (s[0], s[1], s[2], s[3])

    def state(self) -> tuple[int, int, int, int]:
        return self.words

    def next_u32(self) -> int:
        s = self._s
        result = (_rotl((s[1] * 5) & MASK32, 7) * 9) & MASK32
        t = (s[1] << 9) & MASK32
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 11)
        return result

    def below(self, n: int) -> int:
        """A draw in ``range(n)``: ``next_u32() % n`` (both sides use the same reduction)."""
        if n <= 0:
            raise ValueError(f"below() needs a positive bound, got {n}")
        return self.next_u32() % n

    def random(self) -> float:
        """A draw in [0, 1): ``next_u32() / 2**32``."""
        return self.next_u32() / 4294967296.0


def stream(seed: str, name: str | None = None) -> Xoshiro128:
    """The generator for ``seed``'s stream ``name``."""
    return Xoshiro128(seed_words(seed, name))
