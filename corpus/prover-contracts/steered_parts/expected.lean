-- Lean 4 emitted by Eutaxy's prover_lean from domain.props.ts (module domain.ts). Do not edit: it is written anew.
structure R_Version where
  x_major : Int
  x_minor : Int
  x_patch : Int

-- compare is not emitted: && || on non-booleans at line 7 in compare (Int || Int: JavaScript's && and || return an operand, not a boolean)
-- weighted is not emitted: CallExpression at line 12 in weighted (ratios.reduce((sum, r) => sum + r, 0))
-- bump is not emitted: DestructuringDeclaration at line 16 in bump ([major, minor, patch] = version.split(".").map(Number))

-- compareIsAntisymmetric is not emitted: && || on non-booleans at line 7 in compare (Int || Int: JavaScript's && and || return an operand, not a boolean)
-- weightedWithinLength is not emitted: CallExpression at line 12 in weighted (ratios.reduce((sum, r) => sum + r, 0))
-- bumpKeepsShape is not emitted: DestructuringDeclaration at line 16 in bump ([major, minor, patch] = version.split(".").map(Number))
