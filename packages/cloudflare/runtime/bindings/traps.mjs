// @ts-check
/**
 * The traps record: every binding outside the allowlist, or not modelled yet (the `traps`
 * section: `{NAME: kind}`), and the Cache API, stand in as traps (unsupported.mjs) that make
 * the run UNSUPPORTED when touched (`binding_not_allowed`, `binding_not_modelled`).
 */

import { trapBinding, trappedCaches } from "../unsupported.mjs";

/** @type {import("./record.mjs").BindingRecord} */
export const traps = {
  kind: "traps",
  names: (config) => Object.entries(config.traps ?? {}),
  standsIn: true,
  proxy: (_run, _inv, name, _real, kind) => trapBinding(kind, name),
  globals: () => [[globalThis, "caches", trappedCaches()]],
};
