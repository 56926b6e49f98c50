"""TESTED near the source's constants: what the reader finds, what is derived, and the isolated failures found.

A claim false only next to a constant the module is written with (q = 249
beside a limit of 250; -1500 and -90000, one and a half times 1000 and 60000,
negated) was TESTED under every seed while the draws knew only round numbers.
The reader now lists the numbers a claim's code reaches (``constants``), the
rung walks values derived from them after the edges and draws near them, and
integers shrink to rounder smaller multiples.
"""

import attrs
import pytest

from eutaxy.prover import domains
from eutaxy.prover.evaluator import Evaluator
from eutaxy.prover.reader import read_specs
from eutaxy.prover.tested import MAX_INSIDE_DEFAULT, run_tested

from prover_support import prop

CARD = """\
export const RATE = 3;
export function fee(amount: number): number { return amount * RATE + 30; }
"""

BANK = """\
const FLOOR = 2500;
export function fee(amount: number): number { return amount < FLOOR ? 0 : 125; }
export default function round(amount: number): number { return Math.round(amount / 5) * 5; }
"""

REEXPORT = """\
export { fee as bankFee } from "./bank.ts";
"""

MODULE = """\
import { fee as cardFee } from "./card.ts";
import { bankFee } from "./reexport.ts";
import roundBank from "./bank.ts";

export const FREE_FROM = 250;
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
const LIMITS = { daily: 7000 };
const UNUSED = 4242;

/** Free from 250 units on, a flat fee below; the band's edge slipped by one. */
export function shipping(quantity: number): number {
  if (quantity === FREE_FROM - 1) return -5;
  return quantity >= FREE_FROM ? 0 : 5;
}

/** Never negative, except at two past-due slots a lookup got wrong. */
export function waitFor(deltaMs: number): number {
  if (deltaMs === -1.5 * SECOND || deltaMs === -1.5 * MINUTE) return deltaMs;
  return Math.max(0, deltaMs);
}

export function billed(cents: number): number {
  if (cents % SECOND === SECOND / 2) return -1;
  return cents;
}

export function total(amount: number): number {
  return cardFee(amount) + bankFee(amount) + roundBank(amount) + LIMITS.daily;
}

export function unrelated(n: number): number { return n + UNUSED; }

export function items(xs: readonly number[], label: string): number { return xs.length + label.length; }
"""

PROPS = """\
import { forall } from "eutaxy/spec";
import { billed, items, shipping, total, waitFor } from "./m.ts";

export const shippingNeverNegative = forall(shipping, {
  when: (q) => Number.isInteger(q) && q >= 0,
  ensures: (q) => shipping(q) >= 0,
});
export const waitNeverNegative = forall(waitFor, { ensures: (deltaMs) => !(waitFor(deltaMs) < 0) });
export const billedNeverNegative = forall(billed, {
  when: (cents) => Number.isInteger(cents) && cents >= 0,
  ensures: (cents) => billed(cents) >= 0,
});
export const totalIsANumber = forall(total, { ensures: (amount) => typeof total(amount) === "number" || amount > 99 });
export const itemsCount = forall(items, { ensures: (xs, label) => items(xs, label) >= 0 });
export const itemsShort = forall(items, {
  ensures: (xs, label) => items(xs, label) >= 0,
  sample: { maxArrayLength: 40, maxStringLength: 3 },
});
"""

SEEDS = ("near-1", "near-2", "near-3")


@pytest.fixture(scope="module")
def spec_path(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("constants")
    for name, text in (("card.ts", CARD), ("bank.ts", BANK), ("reexport.ts", REEXPORT), ("m.ts", MODULE),
                       ("m.props.ts", PROPS)):
        (tmp / name).write_text(text)
    return tmp / "m.props.ts"


@pytest.fixture(scope="module")
def module(spec_path, toolchain):
    [read] = read_specs([spec_path], toolchain)
    assert () == read.diagnostics
    return read


@pytest.fixture(scope="module")
def evaluator(spec_path, toolchain):
    with Evaluator(spec_path, toolchain) as evaluator:
        yield evaluator


def test_the_reader_lists_the_numbers_the_claims_code_reaches(module):
    """The function's own literals first, folded module constants (60 * SECOND), constants reached
    through aliased imports, a re-export and a default export, an object literal's numbers, and
    the claim's own; never a constant only an unrelated function uses."""
    assert (1, 5, 250) == prop(module, "shippingNeverNegative").constants
    assert (1.5, 1000, 60000, 60) == prop(module, "waitNeverNegative").constants
    found = prop(module, "totalIsANumber").constants
    assert {7000, 3, 30, 2500, 125, 5, 99} <= set(found)
    assert 4242 not in found
    assert () == prop(module, "itemsCount").constants


def test_near_constants_are_the_value_its_neighbours_and_multiples_each_negated():
    """For 250: 250, 251, 249, 250.5, 249.5, the adjacent doubles, 125, 375, 2500 and 25, each with its negation."""
    near = domains.near_constants((250,))
    assert [250, -250, 251, -251, 249, -249, 250.5, -250.5, 249.5, -249.5] == list(near[:10])
    assert {125, -125, 375, -375, 2500, -2500, 25, -25} <= set(near)
    assert 250.00000000000003 in near
    assert len(near) == len(set(near)) == 22
    assert () == domains.near_constants(())
    assert [1500, -1500] == [v for v in domains.near_constants((1000,)) if abs(v) == 1500]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_claim_false_next_to_a_constant_is_refuted_under_every_seed(module, evaluator, seed):
    """False only at q = 249 beside the constant 250: REFUTED at the default input count, shrunk to 249."""
    result = run_tested(prop(module, "shippingNeverNegative"), evaluator, seed)
    assert ("refuted", [249]) == (result.verdict.kind, result.verdict.counterexample["args"])


@pytest.mark.parametrize("seed", SEEDS)
def test_one_and_a_half_times_a_constant_negated_is_refuted_under_every_seed(module, evaluator, seed):
    """False only at -1500 and -90000 (1.5 times the constants 1000 and 60000, negated): REFUTED."""
    v = run_tested(prop(module, "waitNeverNegative"), evaluator, seed, max_inside=MAX_INSIDE_DEFAULT).verdict
    assert "refuted" == v.kind
    assert v.counterexample["args"][0] in (-1500, -90000)


def test_without_the_constants_the_same_claim_rests_on_luck(module, evaluator):
    """The control: the same property with no constants listed is TESTED under these seeds, which is
    what the draws missed before the reader listed them."""
    bare = attrs.evolve(prop(module, "shippingNeverNegative"), constants=())
    assert ["tested"] * 3 == [run_tested(bare, evaluator, seed).verdict.kind for seed in SEEDS]


def test_a_failure_drawn_at_57500_shrinks_to_500(module, evaluator):
    """A claim false at every amount that leaves 500 over a multiple of 1000, met at 57500 (the only
    constant listed here), shrinks to 500: halving the distance to zero never lands there."""
    seeded = attrs.evolve(prop(module, "billedNeverNegative"), constants=(57500,))
    v = run_tested(seeded, evaluator, "near-1").verdict
    assert "refuted" == v.kind
    assert ([57500], [500]) == (v.counterexample["drawn"], v.counterexample["args"])


def test_length_bounds_are_stated_and_configurable_per_claim(module, evaluator):
    """A verdict over arrays and strings says how long they were drawn; a claim's sample changes it."""
    default = run_tested(prop(module, "itemsCount"), evaluator, "near-1").verdict
    assert "tested" == default.kind
    assert ("arrays are drawn with at most 16 elements (sample.maxArrayLength) unless the precondition asks "
            "for more; longer ones were not tried") in default.assumptions
    assert ("strings are drawn with at most 8 UTF-16 units (sample.maxStringLength) unless the precondition "
            "asks for longer") in default.assumptions
    configured = run_tested(prop(module, "itemsShort"), evaluator, "near-1", show_inputs=1000)
    assert any("at most 40 elements" in a for a in configured.verdict.assumptions)
    assert any("at most 3 UTF-16 units" in a for a in configured.verdict.assumptions)
    assert max(len(args[0]) for args in configured.inputs) > 16
    none = run_tested(prop(module, "shippingNeverNegative"), evaluator, "near-1").verdict
    assert not any("drawn with at most" in a for a in none.assumptions)
