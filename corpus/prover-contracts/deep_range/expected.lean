-- Lean 4 emitted by Eutaxy's prover_lean from domain.props.ts (module domain.ts). Do not edit: it is written anew.
-- fee is not emitted: / at line 2 in fee (division is taken only as Math.floor(x / c) for a positive integer constant c)

-- feeNonNegative is not emitted: / at line 2 in fee (division is taken only as Math.floor(x / c) for a positive integer constant c)
