// @ts-check
/**
 * The toy counter service's runtime record (its Python record is counter.py beside it).
 *
 * Each binding keeps its counts here, per isolate: the reset sets them to the setup step's
 * `counts`, `increment(key)` and `get(key)` are one `io` effect each at `Counter:<binding>`,
 * with the ladders the kind's policy gives (the load-message entry's `policy.ladders`), and
 * the snapshot lists the counts as rows `{key, count}` of table `counts`. There is no
 * Miniflare binding behind it: the record stands in for one.
 */

import { compareText } from "../../runtime/canonical.mjs";
import { effectPoint } from "../../runtime/effects.mjs";
import { ladderOf } from "../../runtime/bindings/policy.mjs";

/** Binding -> key -> count. @type {Map<string, Map<string, number>>} */
const COUNTS = new Map();

/** @param {string} op @returns {(fault: string) => Error} */
const injectedError = (op) => (fault) => new Error(`counter ${op}: ${fault} (eutaxy: injected)`);

/** @type {import("../../runtime/bindings/record.mjs").BindingRecord} */
export const record = {
  kind: "counter",
  standsIn: true,
  proxy(run, inv, name, _real, entry) {
    const counts = /** @type {Map<string, number>} */ (COUNTS.get(name));
    const target = `Counter:${name}`;
    /** @param {string} op @param {string} key @param {() => number} perform */
    const point = (op, key, perform) => effectPoint(run, inv, {
      kind: "io", target, op, args: { key }, ladder: ladderOf(entry, op),
      injectedError: injectedError(op), perform: async () => perform(), summarize: (value) => ({ value }),
    });
    return {
      /** @param {string} key */
      increment: (key) => point("increment", key, () => {
        counts.set(key, (counts.get(key) ?? 0) + 1);
        return /** @type {number} */ (counts.get(key));
      }),
      /** @param {string} key */
      get: (key) => point("get", key, () => counts.get(key) ?? 0),
    };
  },
  async reset(name, _real, entry) {
    COUNTS.set(name, new Map(Object.entries(entry.setup.counts)));
  },
  async snapshot(owned) {
    return [...owned].sort(([a], [b]) => compareText(a, b)).map(([name]) => ({
      target: `Counter:${name}`,
      table: "counts",
      rows: [.../** @type {Map<string, number>} */ (COUNTS.get(name))].sort(([a], [b]) => compareText(a, b)).map(([key, count]) => ({ key, count })),
    }));
  },
};
