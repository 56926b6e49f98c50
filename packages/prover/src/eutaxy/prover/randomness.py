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


@attrs.define(eq=False)
class Draws:
    source: Xoshiro128

    @classmethod
    def for_property(cls, seed: str, name: str) -> "Draws":
        return cls(stream(seed, property_stream_name(name)))

    def u32(self) -> int:
        return self.source.next_u32()

    def below(self, n: int) -> int:
        """Uniform in ``range(n)`` for any positive ``n`` (several words when ``n`` passes 2**32)."""
        assert n > 0, n
        if n <= 1 << 32:
            return self.source.below(n)
        bits = n.bit_length() + 32
        value = 0
        for _ in range((bits + 31) // 32):
            value = (value << 32) | self.source.next_u32()
        return value % n

    def between(self, lo: int, hi: int) -> int:
        """Uniform integer in ``[lo, hi]``."""
        assert lo <= hi, (lo, hi)
        return lo + self.below(hi - lo + 1)

    def random(self) -> float:
        return self.source.random()

    def chance(self, p: float) -> bool:
        return self.source.random() < p

    def choice(self, options: Sequence[T]) -> T:
        assert options, "choice from nothing"
        return options[self.below(len(options))]
