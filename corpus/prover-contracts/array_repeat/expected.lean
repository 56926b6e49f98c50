-- Lean 4 emitted by Eutaxy's prover_lean from domain.props.ts (module domain.ts). Do not edit: it is written anew.
-- distinctAmounts is not emitted: NewExpression at line 3 in distinctAmounts (new Set(amounts))

-- oneEach is not emitted: NewExpression at line 3 in distinctAmounts (new Set(amounts))
