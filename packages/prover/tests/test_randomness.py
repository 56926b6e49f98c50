"""Each property's stream is core's derived stream for its name; draws cover wide ranges evenly enough."""

from eutaxy.core.prng import stream
from eutaxy.prover.randomness import Draws, property_stream_name


def test_stream_is_derived_from_seed_and_property_name():
    """A property draws from prng.stream(seed, "tested/" + name), nothing else."""
    assert "tested/withinCaptured" == property_stream_name("withinCaptured")
    ours = Draws.for_property("seed-1", "withinCaptured")
    core = stream("seed-1", "tested/withinCaptured")
    assert [core.next_u32() for _ in range(5)] == [ours.u32() for _ in range(5)]
    # Past several refills of the buffered generator, still the core stream word for word.
    assert [core.next_u32() for _ in range(3000)] == [ours.u32() for _ in range(3000)]


def test_below_beyond_32_bits_and_between():
    """below() takes bounds past 2**32 (bigints, safe integers); between() is inclusive at both ends."""
    d = Draws.for_property("s", "p")
    big = [d.below(2**70) for _ in range(200)]
    assert all(0 <= v < 2**70 for v in big) and max(big) > 2**64
    small = {d.between(-2, 2) for _ in range(200)}
    assert {-2, -1, 0, 1, 2} == small


def test_random_and_chance_are_the_core_streams_reading():
    """random() is next_u32() / 2**32 exactly, and chance(p) is random() < p, across refills."""
    ours = Draws.for_property("seed-2", "p")
    core = stream("seed-2", "tested/p")
    assert [core.random() for _ in range(2500)] == [ours.random() for _ in range(2500)]
