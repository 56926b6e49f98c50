import { forall } from "eutaxy/spec";
import { clampPercent, toKey } from "./domain.ts";

// String(-0) is "0", so -0 does not survive the round trip; every other double does.
export const keyRoundTrips = forall(toKey, {
  ensures: (n) => Object.is(Number(toKey(n)), n),
});

// NaN is neither below 0 nor above 100, so it passes through.
export const percentInRange = forall(clampPercent, {
  ensures: (p) => clampPercent(p) >= 0 && clampPercent(p) <= 100,
});
