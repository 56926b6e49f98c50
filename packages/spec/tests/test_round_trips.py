"""Every SpecIR value survives to_data, JSON and from_data (Hypothesis over spec_strategies)."""

import json

from hypothesis import HealthCheck, given, settings

from eutaxy.spec import SpecModule, expr_from_data, type_from_data

from spec_strategies import exprs, spec_modules, spec_types

FAST = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)


@FAST
@given(spec_types)
def test_types_round_trip(t):
    """A drawn type of any nesting round-trips."""
    assert t == type_from_data(json.loads(json.dumps(t.to_data())))


@FAST
@given(exprs)
def test_exprs_round_trip(e):
    """A drawn claim tree round-trips."""
    assert e == expr_from_data(json.loads(json.dumps(e.to_data())))


@FAST
@given(spec_modules)
def test_modules_round_trip(m):
    """A drawn spec module round-trips."""
    assert m == SpecModule.from_data(json.loads(json.dumps(m.to_data())))
