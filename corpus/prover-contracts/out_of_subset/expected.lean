-- Lean 4 emitted by Eutaxy's prover_lean from domain.props.ts (module domain.ts). Do not edit: it is written anew.
-- countDown is not emitted: WhileStatement at line 3 in countDown (while (n > 0) n = n - 1;)

-- endsAtZero is not emitted: WhileStatement at line 3 in countDown (while (n > 0) n = n - 1;)
