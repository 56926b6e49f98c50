"""Helpers the prover's tests share (a uniquely named module, so test folders of other packages cannot shadow it)."""

from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def prop(module, name):
    """The property called ``name`` in a read spec module."""
    return next(p for p in module.properties if p.name == name)
