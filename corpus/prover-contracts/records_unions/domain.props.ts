import { forall } from "eutaxy/spec";
import { balanceAfter, initial, reasonOf, withdraw } from "./domain.ts";

// Only an account pays out.
export const onlyAccountsPay = forall(withdraw, {
  ensures: (account, amount) => withdraw(account, amount).kind === "refused" || account !== null,
});

// A withdrawal never leaves a balance below zero: false for an infinite balance
// and amount (Infinity - Infinity is NaN), which the solver finds.
export const neverOverdrawn = forall(withdraw, {
  when: (account, amount) => account === null || account.balance >= 0,
  ensures: (account, amount) => balanceAfter(withdraw(account, amount), 0) >= 0,
});

// Every refusal says why.
export const refusalsSayWhy = forall(withdraw, {
  ensures: (account, amount) => withdraw(account, amount).kind === "ok" || reasonOf(withdraw(account, amount)).length > 0,
});

// One code unit, whatever the name (a lone surrogate is one unit too).
export const initialIsOneUnit = forall(initial, {
  ensures: (name) => initial(name).length === 1,
});
