"""eutaxy.prover_lean."""
