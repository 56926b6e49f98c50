-- Lean 4 emitted by Eutaxy's prover_lean from domain.props.ts (module domain.ts). Do not edit: it is written anew.
def f_area (v_width : Int) (v_height : Int) : Int :=
  (v_width * v_height)

-- areaCommutes is not emitted: other builtins at line 5 in the claim (Number.isNaN: of the built-ins the Lean engine takes Number.isInteger and Math.floor only)
