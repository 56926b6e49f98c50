"""Custom generators from eutaxy/spec: plain data Python draws from and shrinks, mapped and filtered in Node."""

import pytest

from eutaxy.prover import generators
from eutaxy.prover.report import run_report

from prover_support import FIXTURES


@pytest.fixture(scope="module")
def report(toolchain):
    return run_report(FIXTURES / "generators", "gens", toolchain=toolchain, show_inputs=5)


def _props(report):
    return {p["property"]: p for p in report["modules"][0]["properties"]}


def test_a_mapped_generator_draws_a_type_the_types_cannot(report):
    """A tuple parameter is drawn through gen.map over a record of integers: TESTED, every input inside the ranges."""
    norm = _props(report)["normAtLeastEach"]
    assert "tested" == norm["kind"] and 100 == norm["counts"]["tested"]
    assert all(-50 <= r["x"] <= 50 and -50 <= r["y"] <= 50 for [r] in norm["tested"]["inputs"])
    assert "p drawn from custom generators (inputs); the claim is over the parameter types" in norm["assumptions"]


def test_one_of_is_enumerated_whole(report):
    """gen.oneOf of three values is the whole domain, seen whole."""
    labels = _props(report)["labelsUpper"]
    assert ("tested", 3, True) == (labels["kind"], labels["counts"]["tested"], labels["tested"]["wholeDomain"])


def test_counterexamples_shrink_inside_the_generator(report):
    """A false claim is refuted and shrunk without leaving the generator (filtered quantities stay odd, lengths >= 1)."""
    carts = _props(report)["oneLineCarts"]
    assert "refuted" == carts["kind"]
    [cart] = carts["counterexample"]["args"]
    assert 2 <= len(cart) <= 4 and all(line["qty"] in (1, 3, 5) and line["sku"] in ("x", "y") for line in cart)
    assert sum(line["qty"] for line in cart) > 5


def test_admits_is_the_generators_domain():
    """Values outside a generator are never drawn: admits says which are inside."""
    g = {"gen": "array", "of": {"gen": "integer", "lo": 0, "hi": 3}, "minLength": 1, "maxLength": 2}
    assert generators.admits(g, (0, 3)) and not generators.admits(g, ()) and not generators.admits(g, (4,))
    assert not generators.admits(g, (0.5,)) and not generators.admits(g, (1, 2, 3))
