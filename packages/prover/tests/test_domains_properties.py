"""Properties of edges, draws and shrinks over any drawable type (Hypothesis over prover_strategies)."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eutaxy.prover import domains
from eutaxy.prover.randomness import Draws
from eutaxy.spec.values import decode, encode, key
from eutaxy.spec import LiteralUnionType

from prover_strategies import drawable_types

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)


@FAST
@given(drawable_types)
def test_edges_are_distinct_members_and_bounded(t):
    """Edges are values of the type, distinct, and at most 64 unless every literal of a union must be tried."""
    found = domains.edges(t)
    keys = [key(encode(v)) for v in found]
    assert len(set(keys)) == len(keys)
    assert all(domains.fits(t, v) for v in found)
    assert len(found) <= domains.EDGES_MAX or isinstance(t, LiteralUnionType)


@FAST
@given(drawable_types, st.text(max_size=4))
def test_draws_and_their_shrinks_are_members(t, seed):
    """Every draw is a value of its type, encodes and decodes to itself, and shrinks only to values of the type."""
    ctx = domains.DrawContext(draws=Draws.for_property(seed, "p"))
    for _ in range(5):
        value = domains.draw(t, ctx)
        assert domains.fits(t, value)
        assert key(encode(value)) == key(encode(decode(encode(value))))
        for i, candidate in enumerate(domains.shrink(t, value)):
            assert domains.fits(t, candidate), (value, candidate)
            if i >= 30:
                break
