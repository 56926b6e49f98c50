import { forall } from "eutaxy/spec";
import { bump, compare, weighted, type Version } from "./domain.ts";

const SEMVER = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/;
const MAX_PART = 999;

const isVersion = (v: Version) =>
  Number.isInteger(v.major) && 0 <= v.major && v.major <= MAX_PART &&
  Number.isInteger(v.minor) && 0 <= v.minor && v.minor <= MAX_PART &&
  Number.isInteger(v.patch) && 0 <= v.patch && v.patch <= MAX_PART;

// Fields steered through a helper predicate and a named constant.
export const compareIsAntisymmetric = forall(compare, {
  when: (a, b) => isVersion(a) && isVersion(b),
  ensures: (a, b) => Math.sign(compare(a, b)) === -Math.sign(compare(b, a)),
});

// Elements steered through every().
export const weightedWithinLength = forall(weighted, {
  when: (ratios) => ratios.length > 0 && ratios.every((r) => 0 <= r && r <= 1),
  ensures: (ratios) => weighted(ratios) <= ratios.length,
});

// A named regex constant steers as an inline one does.
export const bumpKeepsShape = forall(bump, {
  when: (version) => SEMVER.test(version),
  ensures: (version) => /^\d+\.\d+\.\d+$/.test(bump(version)),
});
