-- Lean 4 emitted by Eutaxy's prover_lean from domain.props.ts (module domain.ts). Do not edit: it is written anew.
def f_clampPercent (v_p : Int) : Int :=
  if decide (v_p < 0) then
    0
  else
    if decide (v_p > 100) then
      100
    else
      v_p

-- toKey is not emitted: UnresolvedCall at line 3 in toKey (String(n))

def s_percentInRange : Prop :=
  ∀ (v_p : Int),
    ((decide ((f_clampPercent v_p) >= 0) && decide ((f_clampPercent v_p) <= 100))) = true

-- keyRoundTrips is not emitted: UnresolvedCall at line 3 in toKey (String(n))
theorem t_percentInRange : s_percentInRange := by
  unfold s_percentInRange
  intro v_p
  all_goals try simp only [Bool.and_eq_true, Bool.or_eq_true, Bool.not_eq_true', decide_eq_true_eq,
    decide_eq_false_iff_not, Bool.not_eq_false', bne_iff_ne, beq_iff_eq, ne_eq] at *
  all_goals try simp only [f_clampPercent] at *
  all_goals (repeat' split) <;> (try simp only [Bool.and_eq_true, Bool.or_eq_true, Bool.not_eq_true',
    decide_eq_true_eq, decide_eq_false_iff_not, Bool.not_eq_false', bne_iff_ne, beq_iff_eq, ne_eq] at *)
  all_goals omega
#check @t_percentInRange
#print axioms t_percentInRange
