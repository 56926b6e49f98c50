import { forall } from "eutaxy/spec";
import { parity, share, successor } from "./domain.ts";

export const parityIsOneForOdd = forall(parity, {
  when: (n) => Number.isInteger(n) && -100 <= n && n <= 100,
  ensures: (n) => parity(n) === (n % 2 === 0 ? 0 : 1),
});

export const sharePositive = forall(share, {
  when: (ratio) => 0 < ratio && ratio < 1,
  ensures: (ratio) => share(ratio) > 0,
});

export const successorUndoes = forall(successor, {
  when: (n) => Number.isInteger(n) && 0 <= n && n <= 1e17,
  ensures: (n) => successor(n) - 1 === n,
});
