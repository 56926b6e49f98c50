"""The reader on what the first version misread: overloads, template literal types, words for what is not
drawn, default parameters, and preconditions written through helpers, named constants and every()."""

import pytest

from eutaxy.prover.domains import DrawContext, draw, edges
from eutaxy.prover.randomness import Draws
from eutaxy.prover.reader import read_specs
from eutaxy.prover.steering import Guide, guides
from eutaxy.prover.tested import _absent_too, overload_assumption
from eutaxy.spec import LiteralUnionType, NullableType, NumberType, StringType, TemplateType, UnsupportedType

from prover_support import prop

MODULE = """\
export interface Version { readonly major: number; readonly minor: number }
export function parse(text: string): number;
export function parse(amount: number, unit: "ms" | "s"): number;
export function parse(a: string | number, unit?: "ms" | "s"): number {
  return typeof a === "number" ? (unit === "s" ? a * 1000 : a) : Number(a);
}
export function px(size: `${number}px`, label: `v${"1" | "2"}`): number { return parseFloat(size) + label.length; }
export function tagged(s: symbol): number { return s.toString().length; }
export function pad(text: string, width = 4): string { return text.padStart(width); }
export function newest(versions: readonly Version[], v: Version, tag: string): number { return versions.length + v.major + tag.length; }
"""

PROPS = """\
import { forall } from "eutaxy/spec";
import { newest, pad, parse, px, tagged, type Version } from "./m.ts";

const LIMIT = 99;
const TAG = /^v[0-9]+$/;
const isVersion = (v: Version) => Number.isInteger(v.major) && 0 <= v.major && v.major <= LIMIT && v.minor >= 1;

export const parses = forall(parse, { ensures: (amount, unit) => parse(amount, unit) >= 0 || amount < 0 });
export const sizes = forall(px, { ensures: (size, label) => px(size, label) === px(size, label) || true });
export const symbols = forall(tagged, { ensures: (s) => tagged(s) > 0 });
export const pads = forall(pad, { ensures: (text, width) => pad(text, width).length >= text.length });
export const steers = forall(newest, {
  when: (versions, v, tag) => versions.length <= 3 && versions.every((w) => isVersion(w)) && isVersion(v) && TAG.test(tag),
  ensures: (versions, v, tag) => newest(versions, v, tag) >= 0,
});
"""


@pytest.fixture(scope="module")
def module(toolchain, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("reader_v2")
    (tmp / "m.ts").write_text(MODULE)
    (tmp / "m.props.ts").write_text(PROPS)
    [read] = read_specs([tmp / "m.props.ts"], toolchain)
    assert () == read.diagnostics
    return read


def test_an_overloaded_function_quantifies_over_the_overload_the_compiler_checked(module):
    """Parameters<F> takes the last overload, so the binders are that overload's, and the verdict names it."""
    parses = prop(module, "parses")
    assert ["amount", "unit"] == [b.name for b in parses.binders]
    assert NumberType() == parses.binders[0].type
    assert 2 == parses.overload["count"] and "(amount: number, unit: \"ms\" | \"s\"): number" == parses.overload["chosen"]
    assert "quantified over the last of 2 overloads of parse" in overload_assumption(parses)[0]


def test_template_literal_types_are_drawn(module):
    """`${number}px` is drawn as a number written as String writes it, then "px"; a literal hole takes each literal."""
    size, label = (b.type for b in prop(module, "sizes").binders)
    assert TemplateType(texts=("", "px"), holes=(NumberType(),), name="`${number}px`") == size
    assert isinstance(label, (TemplateType, LiteralUnionType))
    ctx = DrawContext(draws=Draws.for_property("s", "sizes"))
    drawn = [draw(size, ctx) for _ in range(50)]
    assert all(s.endswith("px") and not s.endswith(".0px") for s in drawn)
    assert "NaNpx" in edges(size) and "-0px" not in edges(size), "String(-0) is 0"


def test_what_is_not_drawn_is_said_in_words(module):
    """A symbol parameter is unsupported in words, never as compiler flags."""
    [s] = prop(module, "symbols").binders
    assert isinstance(s.type, UnsupportedType)
    assert "symbol is not drawn" == s.type.reason and "flags" not in s.type.reason


def test_a_default_parameter_is_drawn_absent_too(module):
    """width = 4 is optional: its type gains undefined, so edges and draws pass it absent."""
    text, width = prop(module, "pads").binders
    assert width.optional and not text.optional
    assert NullableType(inner=NumberType(), null=False, undefined=True, name="number | undefined") == _absent_too(width)
    assert StringType() == _absent_too(text)


def test_helpers_named_constants_and_every_steer(module):
    """A helper predicate is inlined, a named number and a named regex are their values, and every() steers elements."""
    steers = prop(module, "steers")
    versions, v, tag = guides(steers.when, 3, [b.type for b in steers.binders])
    major = Guide(lo=0, hi=99, integer=True)
    assert major == v.field("major") and Guide(lo=1) == v.field("minor")
    assert major == versions.elements.field("major")
    assert Guide(hi=3, integer=True) == versions.lengths
    assert (("^v[0-9]+$", ""),) == tag.patterns
