"""Custom generators: a binder's domain given by ``forall(f, { inputs: [gen.integer(0, 9), ...] })``.

A generator is plain data (the evaluator reports it when it loads the spec
file, its functions left out), so Python draws from it and shrinks what it
drew as it does any binder; ``map`` and ``filter`` are applied by the
evaluator to the drawn value before ``when`` and ``ensures`` see it, a value
``filter`` refuses counting as outside the claim.

Each generator maps onto a SpecType and a steering guide (``domain``), so the
edges, enumeration and shrinking of ``domains`` serve it; ``admits`` keeps
every value (edge, draw or shrink candidate) inside the generator, and
``draw`` draws only inside it.
"""

from __future__ import annotations

import math
from typing import Any

from eutaxy.spec import ArrayType, Field, LiteralUnionType, NumberType, RecordType, SpecType, StringType
from eutaxy.spec.values import encode, is_number, key, number

from . import domains
from .steering import Guide
from .values import utf16_length


def domain(g: dict) -> tuple[SpecType, Guide]:
    """The type and guide a generator's drawn values have."""
    kind = g["gen"]
    if kind in ("map", "filter"):
        return domain(g["of"])
    if kind == "integer":
        return NumberType(name="integer"), Guide(lo=g["lo"], hi=g["hi"], integer=True)
    if kind == "number":
        return NumberType(), Guide(lo=g["lo"], hi=g["hi"])
    if kind == "oneOf":
        return LiteralUnionType(values=tuple(encode(v) for v in g["values"]), name="oneOf"), Guide()
    if kind == "string":
        return StringType(), Guide(length=Guide(lo=g["minLength"], hi=g["maxLength"], integer=True))
    if kind == "array":
        element, element_guide = domain(g["of"])
        return ArrayType(element=element), Guide(element=element_guide,
                                                 length=Guide(lo=g["minLength"], hi=g["maxLength"], integer=True))
    if kind == "record":
        parts = {name: domain(sub) for name, sub in g["fields"].items()}
        return (RecordType(fields=tuple(Field(name=n, type=t) for n, (t, _) in parts.items())),
                Guide(fields=tuple((n, guide) for n, (_, guide) in parts.items())))
    raise ValueError(f"unknown generator {kind!r}")


def admits(g: dict, value: Any) -> bool:
    """Whether ``value`` is one the generator draws (before its map and filter)."""
    kind = g["gen"]
    if kind in ("map", "filter"):
        return admits(g["of"], value)
    if kind == "integer":
        return is_number(value) and math.isfinite(value) and float(value).is_integer() and g["lo"] <= value <= g["hi"]
    if kind == "number":
        return is_number(value) and math.isfinite(value) and g["lo"] <= value <= g["hi"]
    if kind == "oneOf":
        return key(encode(value)) in {key(encode(v)) for v in g["values"]}
    if kind == "string":
        return isinstance(value, str) and g["minLength"] <= utf16_length(value) <= g["maxLength"]
    if kind == "array":
        return (isinstance(value, tuple) and g["minLength"] <= len(value) <= g["maxLength"]
                and all(admits(g["of"], v) for v in value))
    if kind == "record":
        return (isinstance(value, dict) and set(value) == set(g["fields"])
                and all(admits(sub, value[name]) for name, sub in g["fields"].items()))
    return False


def edges(g: dict) -> list:
    """The type's edges the generator admits (possibly none)."""
    t, guide = domain(g)
    return [v for v in domains.edges(t, guide) if admits(g, v)]


def draw(g: dict, ctx: domains.DrawContext) -> Any:
    """One value the generator admits."""
    d = ctx.draws
    kind = g["gen"]
    if kind in ("map", "filter"):
        return draw(g["of"], ctx)
    if kind == "oneOf":
        return d.choice(g["values"])
    if kind in ("integer", "number"):
        t, guide = domain(g)
        for _ in range(8):
            value = domains.draw(t, ctx, guide)
            if admits(g, value):
                return value
        lo, hi = g["lo"], g["hi"]
        return number(d.between(math.ceil(lo), math.floor(hi))) if kind == "integer" else number(lo + (hi - lo) * d.random())
    if kind == "string":
        length = d.between(g["minLength"], g["maxLength"])
        out = ""
        while utf16_length(out) < length:
            ch = domains.draw_char(d)
            out += ch if utf16_length(out + ch) <= length else d.choice(domains.LETTERS)
        return out
    if kind == "array":
        items: list = []
        for i in range(d.between(g["minLength"], g["maxLength"])):
            items.append(d.choice(items) if i > 0 and d.chance(domains.REPEAT_CHANCE) else draw(g["of"], ctx))
        return tuple(items)
    if kind == "record":
        return {name: draw(sub, ctx) for name, sub in g["fields"].items()}
    raise ValueError(f"unknown generator {kind!r}")
