-- Lean 4 emitted by Eutaxy's prover_lean from domain.props.ts (module domain.ts). Do not edit: it is written anew.
structure R_Decision where
  x_refunded : Int
  x_accepted : Bool

def f_decideRefund (v_captured : Int) (v_refunded : Int) (v_amount : Int) : R_Decision :=
  if ((!decide (v_amount > 0)) || decide ((v_refunded + v_amount) > v_captured)) then
    ({ x_refunded := v_refunded, x_accepted := false } : R_Decision)
  else
    ({ x_refunded := (v_refunded + v_amount), x_accepted := true } : R_Decision)

def s_withinCaptured : Prop :=
  ∀ (v_captured : Int) (v_refunded : Int) (v_amount : Int),
    ((decide (0 <= v_refunded) && decide (v_refunded <= v_captured))) = true →
    (decide ((f_decideRefund v_captured v_refunded v_amount).x_refunded <= v_captured)) = true

theorem t_withinCaptured : s_withinCaptured := by
  unfold s_withinCaptured
  intro v_captured v_refunded v_amount
  all_goals try simp only [Bool.and_eq_true, Bool.or_eq_true, Bool.not_eq_true', decide_eq_true_eq,
    decide_eq_false_iff_not, Bool.not_eq_false', bne_iff_ne, beq_iff_eq, ne_eq] at *
  all_goals try simp only [f_decideRefund] at *
  all_goals (repeat' split) <;> (try simp only [Bool.and_eq_true, Bool.or_eq_true, Bool.not_eq_true',
    decide_eq_true_eq, decide_eq_false_iff_not, Bool.not_eq_false', bne_iff_ne, beq_iff_eq, ne_eq] at *)
  all_goals omega
#check @t_withinCaptured
#print axioms t_withinCaptured
