-- Lean 4 emitted by Eutaxy's prover_lean from domain.props.ts (module domain.ts). Do not edit: it is written anew.
-- initials is not emitted: CallExpression at line 2 in initials (name.slice(0, 1))

-- checksummedNames is not emitted: CallExpression at line 2 in initials (name.slice(0, 1))
