// @ts-check
/**
 * The spec ladder's value encoding in JavaScript; `eutaxy.spec.values` is the same rule in
 * Python, and both are held to `src/eutaxy/spec/value_vectors.json` (test/values.test.mjs
 * here, tests/test_values.py there). JSON for plain values, and a tagged object for what
 * JSON cannot say:
 *
 *   {"$": "bigint", "v": "-12"}      {"$": "number", "v": "NaN" | "Infinity" | "-Infinity" | "-0"}
 *   {"$": "undefined"}               {"$": "object", "v": {...}}   (a record whose own keys include "$")
 *
 * `exact(value)` encodes a live value. Strings cross as they are; arrays element by element
 * (a hole reads as undefined); records are objects whose prototype is `Object.prototype` or
 * null, encoded by their own enumerable string keys in order (a field holding undefined is
 * kept, tagged). Anything else (a Date, Map, Set, RegExp, typed array, class instance,
 * function, symbol, or a cycle) the encoding cannot carry: `exact` then returns
 * `{ok: false, why}` naming where it is. It never throws: a getter that throws is a failed
 * reading. `decode(encoded)` is the inverse.
 */

/** @typedef {{ ok: true, value: unknown, why?: undefined } | { ok: false, why: string, value?: undefined }} Exact */

/** What an encoder throws where a value is one its encoding cannot carry; the message says where and what. */
export class Unreadable extends Error {}

/**
 * `encode(value, where, path)` as a reading that never throws: `{ok: false, why}` where the
 * encoder threw `Unreadable`, or where reading the value threw (a getter of the Worker's own).
 * The effect log's encoding (the Cloudflare runtime's values.mjs) reads values this way too.
 * @param {(value: unknown, where: string, path: Set<object>) => unknown} encode
 * @param {unknown} value @param {string} where how the value is named in `why`
 * @returns {Exact}
 */
export function readWith(encode, value, where) {
  try {
    return { ok: true, value: encode(value, where, new Set()) };
  } catch (error) {
    if (error instanceof Unreadable) return { ok: false, why: error.message };
    return { ok: false, why: `${where} could not be read: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * A record's own enumerable string keys in order, each field encoded (`defineProperty`, so a
 * "__proto__" key is a field like any other), wrapped as `{$: "object", v}` when a key is "$".
 * @param {object} record @param {(item: unknown, key: string) => unknown} encodeField
 * @param {(item: unknown) => boolean} [keep] which fields are written (all, unless told)
 */
export function encodeRecord(record, encodeField, keep = () => true) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const key of Object.keys(record)) {
    const item = /** @type {any} */ (record)[key];
    if (!keep(item)) continue;
    Object.defineProperty(out, key, { value: encodeField(item, key), enumerable: true, writable: true, configurable: true });
  }
  return Object.hasOwn(out, "$") ? { $: "object", v: out } : out;
}

/**
 * @param {unknown} value @param {string} [where] how the value is named in `why`
 * @returns {Exact}
 */
export function exact(value, where = "value") {
  return readWith(encode, value, where);
}

/** A number in the encoding: itself, or a tag for NaN, the infinities and -0. @param {number} value */
export function encodeNumber(value) {
  if (Number.isNaN(value)) return { $: "number", v: "NaN" };
  if (value === Infinity) return { $: "number", v: "Infinity" };
  if (value === -Infinity) return { $: "number", v: "-Infinity" };
  if (Object.is(value, -0)) return { $: "number", v: "-0" };
  return value;
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
      return encodeNumber(value);
    case "function":
    case "symbol":
      throw new Unreadable(`${where} is a ${typeof value}`);
  }
  if (value === null) return null;
  return encodeObject(/** @type {object} */ (value), where, path, encode, { refusal: "the value encoding cannot carry" });
}

/**
 * The object half of an encoder, shared by this encoding and the effect log's (the Cloudflare
 * runtime's values.mjs): inside the cycle check (and `depthMax`), an array element by element
 * (a hole reads as undefined), then what `other` encodes (it returns undefined for an object
 * it leaves to the rest), then a record by `encodeRecord`; any other object is `Unreadable`
 * with `refusal`.
 * @param {object} object @param {string} where @param {Set<object>} path
 * @param {(value: unknown, where: string, path: Set<object>) => unknown} encode the whole encoder, for the parts
 * @param {{refusal: string, depthMax?: number, other?: (object: object) => unknown, keep?: (item: unknown) => boolean}} options
 * @returns {unknown}
 */
export function encodeObject(object, where, path, encode, options) {
  if (path.has(object)) throw new Unreadable(`${where} is a cycle`);
  const depthMax = options.depthMax ?? Infinity;
  if (path.size >= depthMax) throw new Unreadable(`${where} is nested more than ${depthMax} levels deep`);
  path.add(object);
  try {
    if (Array.isArray(object)) {
      const out = [];
      for (let i = 0; i < object.length; i++) out.push(encode(object[i], `${where}[${i}]`, path));
      return out;
    }
    const encoded = options.other?.(object);
    if (encoded !== undefined) return encoded;
    const proto = Object.getPrototypeOf(object);
    if (proto !== Object.prototype && proto !== null) {
      const name = typeof proto?.constructor === "function" && proto.constructor.name ? proto.constructor.name : "object";
      throw new Unreadable(`${where} is a ${name}, which ${options.refusal}`);
    }
    return encodeRecord(object, (item, key) => encode(item, `${where}.${key}`, path), options.keep);
  } finally {
    path.delete(object);
  }
}

/** @type {Record<string, number>} */
const SPECIAL_NUMBERS = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity, "-0": -0 };

/** The encoding -> a JavaScript value. @param {any} value @returns {unknown} */
export function decode(value) {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(decode);
  if (Object.hasOwn(value, "$")) {
    switch (value.$) {
      case "bigint": return BigInt(value.v);
      case "number":
        if (!Object.hasOwn(SPECIAL_NUMBERS, value.v)) throw new Error(`unknown special number ${JSON.stringify(value.v)}`);
        return SPECIAL_NUMBERS[value.v];
      case "undefined": return undefined;
      case "object": return decodeRecord(value.v);
      default: throw new Error(`unknown value tag ${JSON.stringify(value.$)}`);
    }
  }
  return decodeRecord(value);
}

/** @param {Record<string, unknown>} record */
function decodeRecord(record) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [k, v] of Object.entries(record)) {
    Object.defineProperty(out, k, { value: decode(v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
