"""eutaxy.prover_smt."""
