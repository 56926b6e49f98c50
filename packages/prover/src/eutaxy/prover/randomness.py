"""Draw helpers over one seeded xoshiro128** stream (``eutaxy.core.prng``).

Every random choice the TESTED rung makes goes through a :class:`Draws`, so one
seed and one property name fix every assignment on every machine. Nothing here
reads the module-level ``random``.
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence, TypeVar

import attrs

from eutaxy.core.prng import Xoshiro128, stream

T = TypeVar("T")


def property_stream_name(name: str) -> str:
    """The derived stream a property draws from: adding a property does not move the others'."""
    return "tested/" + name


#: Words Python makes per refill: the generator's step is inlined over locals, which
#: is several times faster than one method call per word.
_REFILL = 1024
#: Words asked of ``ahead`` per refill: a round trip's cost spread over a few thousand draws.
AHEAD_WORDS = 1 << 15
_MASK = 0xFFFFFFFF
_TWO_TO_MINUS_32 = 2.0 ** -32
#: A 32-bit word times this is the word written twice side by side, so a rotation is one
#: shift and a mask: ``rotl(x, k) == (x * _TWICE >> (32 - k)) & _MASK``.
_TWICE = 0x1_0000_0001


def _words(state: tuple[int, int, int, int]) -> tuple[list[int], tuple[int, int, int, int]]:
    """The next ``_REFILL`` words of ``next_u32()`` from ``state`` (``rotl(s1 * 5, 7) * 9``, then
    the state step), and the state after them."""
    s0, s1, s2, s3 = state
    out: list[int] = []
    append = out.append
    for _ in range(_REFILL):
        append((((s1 * 5) & _MASK) * _TWICE >> 25) * 9 & _MASK)
        t = (s1 << 9) & _MASK
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = (s3 * _TWICE >> 21) & _MASK
    return out, (s0, s1, s2, s3)


@attrs.define(eq=False)
class Draws:
    """Draws over one xoshiro128** stream, the same words ``source.next_u32()`` gives, in order.

    Every method takes its words from the buffer the same way (the four lines
    that start with ``at = self._at``), written out in each rather than called,
    since a call per word was a large share of the TESTED rung's time.
    """

    source: Xoshiro128
    #: Where blocks of words come from when set: ``ahead(state, count)`` gives the next ``count``
    #: words of ``state`` and the state after them (the evaluator's Node process, much faster),
    #: or ``None``, and then Python makes the same words itself.
    ahead: Optional[Callable[[tuple[int, int, int, int], int], Optional[tuple[Sequence[int], tuple[int, int, int, int]]]]] = None
    _buffer: Sequence[int] = attrs.field(factory=list, init=False)
    _at: int = attrs.field(default=0, init=False)
    #: ``len(_buffer)``: the words are used up when ``_at`` reaches it.
    _end: int = attrs.field(default=0, init=False)

    @classmethod
    def for_property(cls, seed: str, name: str, ahead: Optional[Callable] = None) -> "Draws":
        return cls(stream(seed, property_stream_name(name)), ahead)

    def _refill(self) -> None:
        """The next block of words, from ``ahead`` when it answers, else made here."""
        state = self.source.words
        block = self.ahead(state, AHEAD_WORDS) if self.ahead is not None else None
        if block is None:
            block = _words(state)
        words, after = block
        assert len(words) > 0 and len(after) == 4, (len(words), after)
        self.source = Xoshiro128(after)
        self._buffer = words
        self._end = len(words)
        self._at = 0

    def u32(self) -> int:
        at = self._at
        if at >= self._end:
            self._refill()
            at = 0
        self._at = at + 1
        return self._buffer[at]

    def below(self, n: int) -> int:
        """Uniform in ``range(n)`` for any positive ``n`` (several words when ``n`` passes 2**32)."""
        assert n > 0, n
        if n <= 1 << 32:
            at = self._at
            if at >= self._end:
                self._refill()
                at = 0
            self._at = at + 1
            return self._buffer[at] % n
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
        if at >= self._end:
            self._refill()
            at = 0
        self._at = at + 1
        return self._buffer[at] * _TWO_TO_MINUS_32

    def chance(self, p: float) -> bool:
        """``random() < p``."""
        at = self._at
        if at >= self._end:
            self._refill()
            at = 0
        self._at = at + 1
        return self._buffer[at] * _TWO_TO_MINUS_32 < p

    def choice(self, options: Sequence[T]) -> T:
        assert options, "choice from nothing"
        return options[self.below(len(options))]
