// @ts-check
/**
 * The exact reading of a Core decision's arguments and result: the spec ladder's value
 * encoding, whose one owner is spec (`packages/spec/js/values.mjs`, held with
 * `eutaxy.spec.values` to `value_vectors.json`). The path is the same in a checkout, in
 * Bazel's runfiles and in installed wheels (`eutaxy/cloudflare/runtime/` beside
 * `eutaxy/spec/js/`), and esbuild bundles it into the Worker with the rest of the runtime.
 * The effect log's encoding (values.mjs) reads values with the same wrapper (`readWith`,
 * `Unreadable`) and walks arrays and records with the same `encodeObject`.
 */

export { Unreadable, encodeObject, exact, readWith } from "../../spec/js/values.mjs";

/** @typedef {import("../../spec/js/values.mjs").Exact} Exact */
