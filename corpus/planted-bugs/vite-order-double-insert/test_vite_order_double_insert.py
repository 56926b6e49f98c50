"""Corpus gate for the vite-order-double-insert planted bug: a Worker checked from its Vite build output.

The project (a Vite single-page app and its API Worker, built once by the Cloudflare Vite plugin;
the build output is committed, so the gate needs no Vite) is checked from the config the build
generated, which .wrangler/deploy/config.json redirects the user's wrangler.jsonc to, with its
modules loaded as a module list (the receipt chunk the entry imports on first use among them).
The buggy insert must be caught (VIOLATED on order-recorded-once, shrunk to one fault and the
one order recorded twice) and its fixed twin must stay BOUNDED, both within a run cap.
"""

from pathlib import Path

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case

HERE = Path(__file__).resolve().parent
BUGGY = HERE / "vite-order-double-insert.sim.py"
FIXED = HERE / "fixed" / "vite-order-double-insert-fixed.sim.py"

#: A cap, so the verdict is the same on any machine (the bug is found in a few runs).
RUNS_MAX = 100

BUILD_OUTPUT = (
    "The Worker is checked from its build output: wrangler.jsonc is redirected by .wrangler/deploy/config.json "
    "to the generated dist/vite_order_double_insert/wrangler.json"
)


def test_buggy_order_api_is_violated_with_one_fault():
    """The second row after a resend is found from the build output, replayed and shrunk to one fault."""
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "order-recorded-once" == verdict["violation"]["invariant"]
    assert 1 == len(verdict["schedule"]["faults"])
    assert 1 == len(verdict["keptEvents"])
    assumptions = verdict["provenance"]["assumptions"]
    assert any(sentence.startswith(BUILD_OUTPUT) for sentence in assumptions), assumptions
    # The regression test the user gets fails here and passes on the fixed twin.
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def test_fixed_twin_is_bounded():
    """The idempotent insert survives every explored schedule."""
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)
    assert any("dist/vite_order_double_insert_fixed/wrangler.json" in sentence for sentence in verdict["provenance"]["assumptions"])
