"""Draw helpers over one seeded xoshiro128** stream (``eutaxy.core.prng``).

Every random choice the TESTED rung makes goes through a :class:`Draws`, so one
seed and one property name fix every assignment on every machine. Nothing here
reads the module-level ``random``.
"""

from __future__ import annotations

from typing import Sequence, TypeVar

import attrs

from eutaxy.core.prng import Xoshiro128, stream

T = TypeVar("T")


def property_stream_name(name: str) -> str:
    """The derived stream a property draws from: adding a property does not move the others'."""
    return "tested/" + name


#: Words generated ahead per refill: the generator's step is inlined over locals, which
#: is several times faster in Python than one method call per word.
_REFILL = 1024
_MASK = 0xFFFFFFFF
_TWO_TO_MINUS_32 = 2.0 ** -32


@attrs.define(eq=False)
class Draws:
    """Draws over one xoshiro128** stream, the same words ``source.next_u32()`` gives, in order."""

    source: Xoshiro128
    _buffer: list = attrs.field(factory=list, init=False)
    _at: int = attrs.field(default=_REFILL, init=False)

    @classmethod
    def for_property(cls, seed: str, name: str) -> "Draws":
        return cls(stream(seed, property_stream_name(name)))

    def _refill(self) -> None:
        s0, s1, s2, s3 = self.source.words
        out = [0] * _REFILL
        for i in range(_REFILL):
            x = (s1 * 5) & _MASK
            out[i] = ((((x << 7) | (x >> 25)) & _MASK) * 9) & _MASK
            t = (s1 << 9) & _MASK
            s2 ^= s0
            s3 ^= s1
            s1 ^= s2
            s0 ^= s3
            s2 ^= t
            s3 = ((s3 << 11) | (s3 >> 21)) & _MASK
        self.source = Xoshiro128((s0, s1, s2, s3))
        self._buffer = out
        self._at = 0

    def u32(self) -> int:
        at = self._at
        if at >= _REFILL:
            self._refill()
            at = 0
        self._at = at + 1
        return self._buffer[at]

    def below(self, n: int) -> int:
        """Uniform in ``range(n)`` for any positive ``n`` (several words when ``n`` passes 2**32)."""
        assert n > 0, n
        if n <= 1 << 32:
            return self.u32() % n
        bits = n.bit_length() + 32
        value = 0
        for _ in range((bits + 31) // 32):
            value = (value << 32) | self.u32()
        return value % n

    def between(self, lo: int, hi: int) -> int:
        """Uniform integer in ``[lo, hi]``."""
        assert lo <= hi, (lo, hi)
        return lo + self.below(hi - lo + 1)

    def random(self) -> float:
        # The word times 2**-32 (exact, a power of two): core's next_u32() / 2**32.
        at = self._at
        if at >= _REFILL:
            self._refill()
            at = 0
        self._at = at + 1
        return self._buffer[at] * _TWO_TO_MINUS_32

    def chance(self, p: float) -> bool:
        return self.random() < p

    def choice(self, options: Sequence[T]) -> T:
        assert options, "choice from nothing"
        return options[self.below(len(options))]
