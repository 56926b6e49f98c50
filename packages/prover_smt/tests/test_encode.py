"""The encoding's doubles against JavaScript's: ``%``, ``Math.round``, ``Math.min``/``max`` and ``Math.sign`` on edge values.

Each is folded by Z3 on constants and compared bit for bit (the sign of zero
included) with JavaScript's result: Python's ``math.fmod`` is C's fmod, which
is what ``%`` computes; the Math tables are JavaScript's own answers.
"""

import math
import struct

import pytest

from eutaxy.prover_smt.encode import Encoder
from eutaxy.prover_smt.toolchain import load_z3
from eutaxy.spec import SpecModule

EDGES = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -2.5, 2.5, 7.0, -7.0, 0.1, 0.49999999999999994, 5e-324, -5e-324,
         1e300, -1e-300, 2.0**53 + 2, 12345.678, math.inf, -math.inf, math.nan]


@pytest.fixture(scope="module")
def enc():
    z3 = load_z3()
    assert not isinstance(z3, str), z3
    return Encoder(z3, SpecModule(spec="s.props.ts", module=None, properties=()))


def _value(enc, term) -> float:
    z3 = enc.z3
    if z3.is_true(z3.simplify(z3.fpIsNaN(term, ctx=enc.ctx))):
        return math.nan
    bits = z3.simplify(z3.fpToIEEEBV(term, ctx=enc.ctx)).as_long()
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def _same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


def _js_mod(a: float, b: float) -> float:
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or b == 0:
        return math.nan
    if math.isinf(b):
        return a
    return math.fmod(a, b)


def test_percent_is_javascripts_remainder(enc):
    """x % y has the sign of x (fmod), unlike IEEE's remainder, on every pair of edges."""
    wrong = [(a, b) for a in EDGES for b in EDGES
             if not _same(_js_mod(a, b), _value(enc, enc._fmod(enc.double(a), enc.double(b))))]
    assert [] == wrong


#: Math.round as JavaScript answers it.
ROUND = [(0.5, 1.0), (-0.5, -0.0), (1.5, 2.0), (-2.5, -2.0), (2.5, 3.0), (-0.3, -0.0), (0.49999999999999994, 0.0),
         (-0.0, -0.0), (2.0**53 + 2, 2.0**53 + 2), (math.inf, math.inf), (math.nan, math.nan), (-7.0, -7.0)]


@pytest.mark.parametrize("x, expected", ROUND)
def test_math_round(enc, x, expected):
    """Halves round up, and a result of zero keeps the sign of x."""
    assert _same(expected, _value(enc, enc._round(enc.double(x))))


@pytest.mark.parametrize("a, b, low, high", [(-0.0, 0.0, -0.0, 0.0), (0.0, -0.0, -0.0, 0.0), (math.nan, 1.0, math.nan, math.nan),
                                             (1.0, math.nan, math.nan, math.nan), (-1.0, 2.0, -1.0, 2.0)])
def test_math_min_max(enc, a, b, low, high):
    """NaN wins, and -0 is below 0, as JavaScript's Math.min and Math.max say."""
    assert _same(low, _value(enc, enc._min_max(True, enc.double(a), enc.double(b))))
    assert _same(high, _value(enc, enc._min_max(False, enc.double(a), enc.double(b))))
