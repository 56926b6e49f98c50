// @ts-check
/**
 * The exact reading of a Core decision's arguments and result: the spec ladder's value
 * encoding, whose one owner is spec (`packages/spec/js/values.mjs`, held with
 * `eutaxy.spec.values` to `value_vectors.json`). The path is the same in a checkout, in
 * Bazel's runfiles and in installed wheels (`eutaxy/cloudflare/runtime/` beside
 * `eutaxy/spec/js/`), and esbuild bundles it into the Worker with the rest of the runtime.
 */

export { exact } from "../../spec/js/values.mjs";

/** @typedef {import("../../spec/js/values.mjs").Exact} Exact */
