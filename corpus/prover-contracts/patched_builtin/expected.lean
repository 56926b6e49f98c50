-- Lean 4 emitted by Eutaxy's prover_lean from domain.props.ts (module domain.ts). Do not edit: it is written anew.
-- whole is not emitted: other builtins at line 3 in whole (Math.trunc: of the built-ins the Lean engine takes Number.isInteger and Math.floor only)

-- wholeNotAbove is not emitted: other builtins at line 3 in whole (Math.trunc: of the built-ins the Lean engine takes Number.isInteger and Math.floor only)
