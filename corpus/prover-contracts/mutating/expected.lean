-- Lean 4 emitted by Eutaxy's prover_lean from domain.props.ts (module domain.ts). Do not edit: it is written anew.
-- takeLast is not emitted: type nullable at line 2 in takeLast (number | undefined: nullable types are the SMT engine's first; the Lean engine does not take them yet)

-- takeTwiceSame is not emitted: type nullable at line 2 in takeLast (number | undefined: nullable types are the SMT engine's first; the Lean engine does not take them yet)
