-- Lean 4 emitted by Eutaxy's prover_lean from domain.props.ts (module domain.ts). Do not edit: it is written anew.
def f_halfFee (v_amount : Int) : Int :=
  let v_rest := (v_amount - ((v_amount / 1000) * 1000))
  if decide (v_rest = 937) then
    (-1)
  else
    (v_amount / 2)

def s_halfFeeNonNegative : Prop :=
  ∀ (v_amount : Int),
    (((true && decide (0 <= v_amount)) && decide (v_amount <= 1000000))) = true →
    (decide ((f_halfFee v_amount) >= 0)) = true

theorem t_halfFeeNonNegative : s_halfFeeNonNegative := by
  unfold s_halfFeeNonNegative
  intro v_amount
  all_goals try simp only [Bool.and_eq_true, Bool.or_eq_true, Bool.not_eq_true', decide_eq_true_eq,
    decide_eq_false_iff_not, Bool.not_eq_false', bne_iff_ne, beq_iff_eq, ne_eq] at *
  all_goals try simp only [f_halfFee] at *
  all_goals (repeat' split) <;> (try simp only [Bool.and_eq_true, Bool.or_eq_true, Bool.not_eq_true',
    decide_eq_true_eq, decide_eq_false_iff_not, Bool.not_eq_false', bne_iff_ne, beq_iff_eq, ne_eq] at *)
  all_goals omega
#check @t_halfFeeNonNegative
#print axioms t_halfFeeNonNegative
