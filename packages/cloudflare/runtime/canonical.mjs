// @ts-check
/**
 * Canonical JSON, written exactly as core's `eutaxy.core.canonical.to_json` writes plain data:
 * keys sorted by UTF-16 code units, no spaces, numbers as ECMAScript prints them (so `1.0`
 * is `1`), NaN and the infinities as strings, bytes as base64, a `Date` in ISO form and a
 * cycle as `"<nested>"`. Rows and keys are sorted and compared by this text on both sides.
 */

import { base64, bytesOf } from "./values.mjs";

export const NESTED = "<nested>";

/** @param {unknown} value @returns {string} */
export function toJson(value) {
  return write(value, new Set());
}

/** Order two strings by UTF-16 code units, JavaScript's default (and core's `string_order`). */
export function compareText(/** @type {string} */ a, /** @type {string} */ b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** @param {unknown} value @param {Set<object>} path @returns {string} */
function write(value, path) {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "string":
      return JSON.stringify(value);
    case "bigint":
      return value.toString();
    case "number":
      if (Number.isNaN(value)) return '"NaN"';
      if (value === Infinity) return '"Infinity"';
      if (value === -Infinity) return '"-Infinity"';
      return String(value);
    case "function":
    case "symbol":
      return JSON.stringify(`<${typeof value}>`);
  }
  const object = /** @type {object} */ (value);
  if (object instanceof Date) return JSON.stringify(object.toISOString());
  if (object instanceof ArrayBuffer || ArrayBuffer.isView(object)) return JSON.stringify(base64(bytesOf(object)));
  if (path.has(object)) return JSON.stringify(NESTED);
  path.add(object);
  try {
    if (Array.isArray(object)) return "[" + object.map((item) => write(item, path)).join(",") + "]";
    if (object instanceof Set) {
      const texts = Array.from(object, (item) => write(item, path)).sort(compareText);
      return "[" + texts.join(",") + "]";
    }
    /** @type {[string, unknown][]} */
    const entries = object instanceof Map ? Array.from(object, ([k, v]) => [typeof k === "string" ? k : write(k, path), v]) : Object.entries(object);
    const parts = entries
      .filter(([, item]) => item !== undefined)
      .map(([key, item]) => [key, write(item, path)])
      .sort((a, b) => compareText(a[0], b[0]) || compareText(a[1], b[1]))
      .map(([key, text]) => JSON.stringify(key) + ":" + text);
    return "{" + parts.join(",") + "}";
  } finally {
    path.delete(object);
  }
}
