"""Virtual globals for one in-process run: the clock and every source of randomness.

A Python handler reads time through ``time``/``datetime`` and randomness through
``random``, ``uuid.uuid4``, ``os.urandom`` and ``secrets``. For a run to be replayable all
of them must come from the run's plan, so while a run is in progress:

- the clock is frozen by time-machine at the run's virtual time (2026-01-01T00:00:00Z plus
  one millisecond per completed effect) and moves only when the run loop advances it;
- the hidden ``random`` instance behind the module-level functions is seeded from the
  run's ``globals`` stream (its own state is saved and put back afterwards);
- ``os.urandom`` and ``random._urandom`` (which ``SystemRandom`` and so ``secrets`` read)
  draw bytes from the same stream; ``uuid.uuid4`` reads ``os.urandom`` at each call, so it
  follows;
- ``time.sleep`` on the run's thread does not wait: it moves the virtual clock by the
  time asked (rounded up to a millisecond), as a timer firing would, so a handler's own
  backoff is deterministic and costs nothing; a sleep that would reach the invocation's
  time limit (``deadline_ms``) stops at it and calls ``on_deadline`` there.

``real_randomness()`` hands the real sources back for the length of a block: the run loop
uses it while an effect performs its real I/O, so the SDK's own request ids and a local
service's ids (an in-process server shares the interpreter) never draw on the handler's
stream. The clock stays virtual there too, as the design asks.

Limits, stated in the docs: code that captured ``from os import urandom`` or a bound
``random.random`` at import before the run escapes the patch; ``time.monotonic`` and
``time.perf_counter`` stay real (time-machine leaves them, and the SDK's timeouts need them).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import random
import math
import struct
import threading
import time
from typing import Any, Callable, Iterator

import attrs

from eutaxy.core.effects import VIRTUAL_EPOCH_MS
from eutaxy.core.prng import Xoshiro128

__all__ = ["VIRTUAL_EPOCH_MS", "VirtualGlobals"]


def _datetime_of(ms: int) -> _dt.datetime:
    return _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc) + _dt.timedelta(milliseconds=ms)


@attrs.define(eq=False)
class VirtualGlobals:
    """The virtual clock and randomness of one run; ``install()`` then ``restore()``.

    Use as a context manager so the real globals come back on every exit path.
    """

    #: The run's ``globals`` stream state words (from the plan).
    words: tuple[int, int, int, int] = attrs.field(converter=tuple)
    #: Virtual milliseconds since the Unix epoch; only ``advance`` moves it.
    now_ms: int = VIRTUAL_EPOCH_MS
    _stream: Xoshiro128 | None = attrs.field(default=None, init=False)
    _traveller: Any = attrs.field(default=None, init=False)
    _coordinates: Any = attrs.field(default=None, init=False)
    _saved: dict[str, Any] | None = attrs.field(default=None, init=False)
    #: The virtual ``random`` state while real randomness is lent out.
    _parked_state: Any = attrs.field(default=None, init=False)
    #: Nesting depth of ``real_randomness`` blocks (0: the virtual sources are in place).
    _lent: int = attrs.field(default=0, init=False)
    #: The thread the run is on; other threads (a local server's) sleep for real.
    _thread: int | None = attrs.field(default=None, init=False)
    #: While a handler with a time limit runs, the virtual time the limit ends at, and what a
    #: sleep reaching it calls once the clock stands there (the run loop stops the handler).
    deadline_ms: int | None = attrs.field(default=None, init=False)
    on_deadline: Callable[[], None] | None = attrs.field(default=None, init=False)

    @property
    def installed(self) -> bool:
        return self._saved is not None

    # --- install / restore -----------------------------------------------------------

    def install(self) -> "VirtualGlobals":
        assert self._saved is None, "virtual globals installed twice"
        self._stream = Xoshiro128(self.words)
        saved = {
            "random_state": random.getstate(),
            "os.urandom": os.urandom,
            "random._urandom": random._urandom,  # type: ignore[attr-defined]  # private to random, absent from typeshed
            "time.sleep": time.sleep,
        }
        # Imported here: time_machine imports pytest (a tenth of a second), which a Workers check never needs.
        import time_machine

        traveller = time_machine.travel(_datetime_of(self.now_ms), tick=False)
        coordinates = traveller.start()
        # Only now is anything replaced: a failure above leaves the real globals alone.
        self._saved = saved
        self._traveller = traveller
        self._coordinates = coordinates
        # The Mersenne Twister behind random.random() & co. gets a 128-bit seed from the
        # stream; its later draws are then a pure function of the plan.
        seed = 0
        for _ in range(4):
            seed = (seed << 32) | self._stream.next_u32()
        random.seed(seed, version=2)
        os.urandom = self._urandom
        random._urandom = self._urandom  # type: ignore[attr-defined]  # private to random, absent from typeshed
        self._thread = threading.get_ident()
        time.sleep = self._sleep
        return self

    def restore(self) -> None:
        """Put every real global back; safe to call when not installed."""
        saved = self._saved
        if saved is None:
            return
        self._saved = None
        try:
            if self._traveller is not None:
                self._traveller.stop()
        finally:
            self._traveller = None
            self._coordinates = None
            os.urandom = saved["os.urandom"]
            random._urandom = saved["random._urandom"]  # type: ignore[attr-defined]  # private to random, absent from typeshed
            time.sleep = saved["time.sleep"]
            random.setstate(saved["random_state"])
            self._parked_state = None
            self._lent = 0

    def __enter__(self) -> "VirtualGlobals":
        return self.install()

    def __exit__(self, *exc_info: Any) -> None:
        self.restore()

    # --- the clock -------------------------------------------------------------------

    def advance(self, ms: int = 1) -> None:
        """Move virtual time forward (one millisecond per completed effect)."""
        assert ms >= 0, ms
        self.now_ms += ms
        if self._coordinates is not None:
            self._coordinates.move_to(_datetime_of(self.now_ms))

    def _sleep(self, seconds: float) -> None:
        if self._lent or threading.get_ident() != self._thread or self._saved is None:
            # Real I/O (the SDK's own backoff) and other threads wait for real.
            real = self._saved["time.sleep"] if self._saved is not None else None
            if real is not None:
                real(seconds)
            return
        if seconds < 0:
            raise ValueError("sleep length must be non-negative")
        ms = math.ceil(seconds * 1000)
        if self.deadline_ms is not None and self.on_deadline is not None and self.now_ms + ms >= self.deadline_ms:
            self.advance(max(0, self.deadline_ms - self.now_ms))
            self.on_deadline()
        self.advance(ms)

    # --- randomness ------------------------------------------------------------------

    def random_bytes(self, count: int) -> bytes:
        """``count`` bytes from the globals stream (little-endian words, as JS draws them)."""
        assert self._stream is not None, "virtual globals not installed"
        if count < 0:
            raise ValueError("negative byte count")
        words = (count + 3) // 4
        data = struct.pack(f"<{words}I", *(self._stream.next_u32() for _ in range(words)))
        return data[:count]

    def _urandom(self, size: int) -> bytes:
        # Same signature as os.urandom: a positional size.
        if self._lent:
            return self._saved_urandom()(size)
        return self.random_bytes(size)

    def _saved_urandom(self) -> Callable[[int], bytes]:
        assert self._saved is not None
        return self._saved["os.urandom"]

    @contextlib.contextmanager
    def real_randomness(self) -> Iterator[None]:
        """Lend the real randomness out for a block (an effect's real I/O)."""
        if self._saved is None:
            yield
            return
        if self._lent == 0:
            self._parked_state = random.getstate()
            random.setstate(self._saved["random_state"])
        self._lent += 1
        try:
            yield
        finally:
            self._lent -= 1
            if self._lent == 0 and self._saved is not None:
                self._saved["random_state"] = random.getstate()
                random.setstate(self._parked_state)
                self._parked_state = None
