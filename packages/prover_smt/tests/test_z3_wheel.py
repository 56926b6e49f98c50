"""The z3 the SMT engine uses is the one requirements.lock pins (hash-checked when the venv is made)."""

import z3


def test_pinned_z3_solves_with_a_resource_limit():
    assert z3.get_version_string() == "5.4.1"  # z3-solver 5.4.1.0, pinned in requirements.lock
    x = z3.Int("x")
    solver = z3.Solver()
    solver.set("rlimit", 1_000_000)  # deterministic resource limit, never wall-clock
    solver.add(x > 2, x < 4)
    assert solver.check() == z3.sat
    assert solver.model()[x].as_long() == 3
