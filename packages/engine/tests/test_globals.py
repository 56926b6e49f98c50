"""Virtual globals: the clock and randomness a run's handler sees, and their restoration."""

import datetime
import os
import random
import secrets
import time
import uuid

import pytest

from eutaxy.core.effects import VIRTUAL_EPOCH_MS
from eutaxy.engine.globals import VirtualGlobals
from eutaxy.engine.runloop import RunLoop

WORDS = (11, 22, 33, 44)


def _draws():
    return (
        random.random(),
        random.randint(0, 10**9),
        str(uuid.uuid4()),
        os.urandom(8).hex(),
        secrets.token_hex(8),
        random.SystemRandom().random(),
    )


def test_time_starts_at_the_virtual_epoch_and_moves_only_when_advanced():
    with VirtualGlobals(WORDS) as virtual:
        assert VIRTUAL_EPOCH_MS / 1000 == time.time()
        assert datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc) == datetime.datetime.now(datetime.timezone.utc)
        virtual.advance(1)
        assert VIRTUAL_EPOCH_MS + 1 == time.time_ns() // 1_000_000
        assert VIRTUAL_EPOCH_MS + 1 == virtual.now_ms
    assert time.time() != (VIRTUAL_EPOCH_MS + 1) / 1000


def test_the_same_words_give_the_same_randomness_and_other_words_differ():
    with VirtualGlobals(WORDS):
        first = _draws()
    with VirtualGlobals(WORDS):
        second = _draws()
    with VirtualGlobals((1, 0, 0, 0)):
        other = _draws()
    assert first == second
    assert all(a != b for a, b in zip(first, other))


def test_uuid4_is_a_valid_version_4_uuid_from_the_stream():
    with VirtualGlobals(WORDS):
        value = uuid.uuid4()
    assert 4 == value.version
    assert uuid.RFC_4122 == value.variant


def test_everything_is_restored_after_the_run():
    """The real sources come back: same functions, and random's own sequence resumes."""
    real_urandom, real_inner = os.urandom, random._urandom
    random.seed(1234)
    expected = random.random()
    random.seed(1234)
    with VirtualGlobals(WORDS):
        random.random()
        uuid.uuid4()
    assert os.urandom is real_urandom
    assert random._urandom is real_inner
    assert expected == random.random()
    assert time.time() > VIRTUAL_EPOCH_MS / 1000 + 3600 or time.time() < VIRTUAL_EPOCH_MS / 1000  # the real clock


def test_everything_is_restored_when_the_run_fails():
    real_urandom = os.urandom
    random.seed(99)
    expected = random.random()
    random.seed(99)
    with pytest.raises(RuntimeError):
        with VirtualGlobals(WORDS):
            random.random()
            raise RuntimeError("the handler's platform blew up")
    assert os.urandom is real_urandom
    assert expected == random.random()


def test_the_run_loop_restores_globals_even_when_its_body_raises():
    plan = {
        "scenario": {"bounds": {"effectHangMs": 10_000}},
        "streams": {"globals": list(WORDS), "turns": [1, 2, 3, 4]},
        "prefix": [],
        "policy": {"kind": "first"},
        "maxFaults": 0,
        "maxShortBatches": 0,
    }
    loop = RunLoop.from_plan(plan)
    real_urandom = os.urandom

    def body(running):
        assert os.urandom is not real_urandom
        raise KeyError("platform bug")

    with pytest.raises(KeyError):
        loop.run(body)
    assert os.urandom is real_urandom
    assert loop.current is None


def test_real_randomness_is_lent_for_a_block_without_disturbing_the_virtual_stream():
    """An effect's real I/O draws real randomness; the handler's sequence is unaffected."""
    with VirtualGlobals(WORDS):
        plain = [random.random(), uuid.uuid4()]
    with VirtualGlobals(WORDS) as virtual:
        first = random.random()
        with virtual.real_randomness():
            random.random()
            os.urandom(16)
        lent = [first, uuid.uuid4()]
    assert plain == lent


def test_installing_twice_is_refused():
    virtual = VirtualGlobals(WORDS)
    with virtual:
        with pytest.raises(AssertionError):
            virtual.install()


def test_sleep_on_the_run_thread_moves_the_virtual_clock_instead_of_waiting():
    real_sleep = time.sleep
    with VirtualGlobals(WORDS) as virtual:
        time.sleep(30)
        time.sleep(0.0004)
        assert VIRTUAL_EPOCH_MS + 30_001 == virtual.now_ms
        assert (VIRTUAL_EPOCH_MS + 30_001) / 1000 == time.time()
        with virtual.real_randomness():
            time.sleep(0)  # real I/O sleeps for real and leaves the clock alone
        assert VIRTUAL_EPOCH_MS + 30_001 == virtual.now_ms
    assert time.sleep is real_sleep
