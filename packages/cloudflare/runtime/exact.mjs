// @ts-check
/**
 * The exact reading of a Core decision's arguments and result, in the spec ladder's value
 * encoding (the prover's `eutaxy.prover.values` and `reader/values.mjs`; this runtime may not
 * import the prover, so it has this small encoder of its own, and
 * `packages/cli/tests/test_exact_values.py` checks the two agree):
 *
 *   plain JSON for plain values, and a tagged object for what JSON cannot say:
 *   {"$": "bigint", "v": "-12"}      {"$": "number", "v": "NaN" | "Infinity" | "-Infinity" | "-0"}
 *   {"$": "undefined"}               {"$": "object", "v": {...}}   (a record whose own keys include "$")
 *
 * Strings cross as they are (JSON keeps lone surrogates as `\uXXXX` escapes). Arrays are
 * encoded element by element (a hole reads as undefined); records are objects whose
 * prototype is `Object.prototype` or null, encoded by their own enumerable string keys in
 * order (a field holding undefined is kept, tagged). Anything else (a Date, Map, Set,
 * RegExp, typed array, class instance, function, symbol, or a cycle) the encoding cannot
 * carry: `exact` then returns `{ok: false, why}` naming where it is, and the decision records
 * only its canonical (JSON) reading. It never throws: a getter that throws is a failed reading.
 */

/** @typedef {{ ok: true, value: unknown } | { ok: false, why: string }} Exact */

class Inexact extends Error {}

/**
 * @param {unknown} value @param {string} [where] how the value is named in `why`
 * @returns {Exact}
 */
export function exact(value, where = "value") {
  try {
    return { ok: true, value: encode(value, where, new Set()) };
  } catch (error) {
    if (error instanceof Inexact) return { ok: false, why: error.message };
    // A getter that throws (or a proxy that refuses): the reading fails, never the user's call.
    return { ok: false, why: `${where} could not be read: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** @param {unknown} value @param {string} where @param {Set<object>} path @returns {unknown} */
function encode(value, where, path) {
  switch (typeof value) {
    case "undefined":
      return { $: "undefined" };
    case "boolean":
    case "string":
      return value;
    case "bigint":
      return { $: "bigint", v: value.toString() };
    case "number":
      if (Number.isNaN(value)) return { $: "number", v: "NaN" };
      if (value === Infinity) return { $: "number", v: "Infinity" };
      if (value === -Infinity) return { $: "number", v: "-Infinity" };
      if (Object.is(value, -0)) return { $: "number", v: "-0" };
      return value;
    case "function":
    case "symbol":
      throw new Inexact(`${where} is a ${typeof value}`);
  }
  if (value === null) return null;
  const object = /** @type {object} */ (value);
  if (path.has(object)) throw new Inexact(`${where} is a cycle`);
  path.add(object);
  try {
    if (Array.isArray(object)) {
      const out = [];
      for (let i = 0; i < object.length; i++) out.push(encode(object[i], `${where}[${i}]`, path));
      return out;
    }
    const proto = Object.getPrototypeOf(object);
    if (proto !== Object.prototype && proto !== null) {
      const name = typeof proto?.constructor === "function" && proto.constructor.name ? proto.constructor.name : "object";
      throw new Inexact(`${where} is a ${name}, which the value encoding cannot carry`);
    }
    /** @type {Record<string, unknown>} */
    const out = {};
    for (const key of Object.keys(object)) {
      // defineProperty, so a "__proto__" key is a field like any other.
      Object.defineProperty(out, key, { value: encode(/** @type {any} */ (object)[key], `${where}.${key}`, path), enumerable: true, writable: true, configurable: true });
    }
    return Object.hasOwn(out, "$") ? { $: "object", v: out } : out;
  } finally {
    path.delete(object);
  }
}
