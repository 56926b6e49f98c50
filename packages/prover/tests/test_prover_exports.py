"""The package's public surface is what __all__ lists, and every name resolves."""

import eutaxy.prover as prover
import eutaxy.spec as spec


def test_exports_resolve():
    """Every name in __all__ exists; run_report and render_text are the CLI's entry points."""
    for module in (prover, spec):
        assert [] == [name for name in module.__all__ if not hasattr(module, name)]
    assert {"run_report", "render_text", "run_tested", "run_checked", "aggregate"} <= set(prover.__all__)
