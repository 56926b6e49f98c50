"""Z3 models back to JavaScript values (the prover's Python spelling), for replay on the real function."""

from __future__ import annotations

import math
import struct
from typing import Any

from eutaxy.spec.values import UNDEFINED, number

from .encode import BOOL, INT, NUM, STR, Encoder, Val

#: Code units read out of one string value at most (a model's strings are short; a bound on the walk).
UNITS_MAX = 4096
#: Elements read out of one array value at most.
ELEMENTS_MAX = 4096


def value_of(enc: Encoder, model, v: Val) -> Any:
    """The value ``v`` takes in ``model``, as the evaluator's Python values (records are dicts, arrays tuples)."""
    z3 = enc.z3
    t = v.t
    if t == NUM:
        return _double(enc, model, v.e)
    if t == INT:
        return number(model.eval(v.e, model_completion=True).as_long())
    if t == BOOL:
        # model.eval may leave a term over constants unsimplified (Not("" == "a")): simplify to a literal.
        return z3.is_true(z3.simplify(model.eval(v.e, model_completion=True)))
    if t == STR:
        return _string(enc, model, v.e)
    kind = t[0]
    if kind == "opt":
        o = enc._option(t[1])
        if z3.is_true(model.eval(o["is_null"](v.e), model_completion=True)):
            return None
        if z3.is_true(model.eval(o["is_undef"](v.e), model_completion=True)):
            return UNDEFINED
        return value_of(enc, model, Val(t[1], o["value"](v.e)))
    if kind == "rec":
        record = enc._records[t[1]]
        return {name: value_of(enc, model, Val(d, acc(v.e))) for name, (d, acc) in record["fields"].items()}
    if kind == "union":
        for m, _, tester, acc in enc._unions[t[1]]["members"]:
            if z3.is_true(model.eval(tester(v.e), model_completion=True)):
                return value_of(enc, model, Val(("rec", m), acc(v.e)))
        raise AssertionError("a union value matches none of its members")
    if kind == "arr":
        n = model.eval(z3.Length(v.e), model_completion=True).as_long()
        assert n <= ELEMENTS_MAX, n
        return tuple(value_of(enc, model, Val(t[1], v.e[z3.IntVal(i, enc.ctx)])) for i in range(n))
    raise AssertionError(f"no value for type {t}")


def _double(enc: Encoder, model, e) -> float | int:
    z3, ctx = enc.z3, enc.ctx
    if z3.is_true(model.eval(z3.fpIsNaN(e, ctx=ctx), model_completion=True)):
        return math.nan
    bits = model.eval(z3.fpToIEEEBV(e, ctx=ctx), model_completion=True).as_long()
    return number(struct.unpack("<d", struct.pack("<Q", bits))[0])


def _string(enc: Encoder, model, e) -> str:
    z3 = enc.z3
    n = model.eval(z3.Length(e), model_completion=True).as_long()
    assert n <= UNITS_MAX, n
    units = [model.eval(z3.StrToCode(z3.SubString(e, i, 1)), model_completion=True).as_long() for i in range(n)]
    return b"".join(u.to_bytes(2, "little") for u in units).decode("utf-16-le", "surrogatepass")
