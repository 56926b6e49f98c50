"""eutaxy.prover."""
