-- Lean 4 emitted by Eutaxy's prover_lean from domain.props.ts (module domain.ts). Do not edit: it is written anew.
def f_successor (v_n : Int) : Int :=
  (v_n + 1)

-- parity is not emitted: other builtins at line 4 in parity (Math.abs: of the built-ins the Lean engine takes Number.isInteger and Math.floor only)
-- share is not emitted: fraction literal at line 10 in share (1e-06: the Lean engine's numbers are the integers)

def s_successorUndoes : Prop :=
  ∀ (v_n : Int),
    (((true && decide (0 <= v_n)) && decide (v_n <= 100000000000000000))) = true →
    (decide (((f_successor v_n) - 1) = v_n)) = true

-- parityIsOneForOdd is not emitted: other builtins at line 4 in parity (Math.abs: of the built-ins the Lean engine takes Number.isInteger and Math.floor only)
-- sharePositive is not emitted: fraction literal at line 10 in share (1e-06: the Lean engine's numbers are the integers)
theorem t_successorUndoes : s_successorUndoes := by
  unfold s_successorUndoes
  intro v_n
  all_goals try simp only [Bool.and_eq_true, Bool.or_eq_true, Bool.not_eq_true', decide_eq_true_eq,
    decide_eq_false_iff_not, Bool.not_eq_false', bne_iff_ne, beq_iff_eq, ne_eq] at *
  all_goals try simp only [f_successor] at *
  all_goals (repeat' split) <;> (try simp only [Bool.and_eq_true, Bool.or_eq_true, Bool.not_eq_true',
    decide_eq_true_eq, decide_eq_false_iff_not, Bool.not_eq_false', bne_iff_ne, beq_iff_eq, ne_eq] at *)
  all_goals omega
#check @t_successorUndoes
#print axioms t_successorUndoes
