// @ts-check
/**
 * The effect log's value encoding: how every binding kind writes a JavaScript value the
 * Worker handed it or got from it (arguments, results, stored values, message bodies,
 * snapshot rows) into the log. `eutaxy.core.values` is the same rule in Python, and both are
 * held to `packages/core/src/eutaxy/core/vectors/values.json` (test/values.test.mjs here,
 * packages/core/tests/test_values.py there), so a changed row fails both suites.
 *
 * Plain data is what the runtime's structured clone carries and the log can write: JSON's
 * values, undefined, bigints, `Date`s, bytes (an `ArrayBuffer`, a typed array or a
 * `DataView`), `Map`s, `Set`s and `Error`s, in arrays and in records (objects whose prototype
 * is `Object.prototype` or null), with no cycle and at most `DEPTH_MAX` levels. Anything else
 * (a function, a symbol, a class instance, a stream, an RPC stub) is a capability or an object
 * whose calls would bypass the proxies: `plainData` says no, and `read` names where it is.
 *
 * The encoding is JSON for what JSON says, read as `JSON.stringify` reads it (undefined and a
 * non-finite number are null, a record field holding undefined is left out, -0 is 0, an array
 * hole is null), and a tagged object for the rest, in the tag style of the spec ladder's
 * encoding (`eutaxy.spec.values`):
 *
 *   {"$": "bytes", "v": "<standard base64>"}     {"$": "date", "v": "2026-01-01T00:00:00.000Z" | null}
 *   {"$": "map", "v": [[key, value], ...]}        {"$": "set", "v": [value, ...]}   (insertion order)
 *   {"$": "bigint", "v": "-12"}                   {"$": "error", "v": {"name": ..., "message": ...}}
 *   {"$": "object", "v": {...}}                   (a record whose own keys include "$")
 *
 * A record with a "$" key travels wrapped, so no user data reads as a tag. An invalid Date's
 * `v` is null. An error is its name and message (`errorFields`), as a failed effect point's
 * `{error}` result writes a thrown one.
 */

/** Deeper than this is not data a Worker hands a binding (and keeps the walk bounded). */
export const DEPTH_MAX = 64;

import { Unreadable as NotPlain, encodeObject, readWith } from "./exact.mjs";

/** @typedef {import("./exact.mjs").Exact} Reading */

/**
 * A value in the log's encoding, or where it is not plain data. Never throws: a getter that
 * throws is a value that cannot be read.
 * @param {unknown} value @param {string} [where] how the value is named in `why`
 * @returns {Reading}
 */
export function read(value, where = "value") {
  return readWith(encode, value, where);
}

/** Whether `value` is plain data (see the module's note): what `logged` can write. @param {unknown} value */
export function plainData(value) {
  return read(value).ok;
}

/**
 * A plain value in the log's encoding. Callers check `plainData` (or use `read`) first for
 * a value the Worker chose; one that is not plain here is Eutaxy's bug.
 * @param {unknown} value @returns {unknown}
 */
export function logged(value) {
  const reading = read(value);
  if (!reading.ok) throw new TypeError(`eutaxy: the effect log cannot hold this: ${reading.why}`);
  return reading.value;
}

/**
 * A value in the log's encoding, or null when it is not plain data: for a value a binding
 * records before the platform refuses it (a D1 parameter), or one the run already stopped on
 * (`not_plain_data`), whose log is not checked.
 * @param {unknown} value
 */
export function loggedOrNull(value) {
  const reading = read(value);
  return reading.ok ? reading.value : null;
}

/**
 * The name and message of a thrown value or an `Error`, as the log writes them: a value that is
 * not an Error is an Error whose message is its text as V8 writes it (`describedThrown`).
 * @param {unknown} error
 */
export function errorFields(error) {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: "Error", message: describedThrown(error) };
}

/**
 * The property `key` of `object` or its prototypes when it is a data property (undefined for a
 * getter, which is never called), as V8 reads a thrown value without side effects.
 * @param {object} object @param {PropertyKey} key
 */
export function dataProperty(object, key) {
  for (let at = object; at !== null; at = Object.getPrototypeOf(at)) {
    const found = Object.getOwnPropertyDescriptor(at, key);
    if (found) return "value" in found ? found.value : undefined;
  }
  return undefined;
}

/** Whether a value is an error object whatever its prototype (ES2026 `Error.isError`, which workerd and Node 24 have). */
export const isError = /** @type {(value: unknown) => boolean} */ (/** @type {any} */ (Error).isError);

/**
 * A thrown value's text as V8 writes it without running its code (the text of an uncaught
 * exception): a primitive as `String` writes it, a function as its source, an error (or an
 * object whose `toString` is `Error.prototype.toString`) as `<name>: <message>` from its data
 * properties (a missing or non-string one empty, either alone without the `: `), an object
 * whose `toString` is `Object.prototype.toString` as `#<Constructor>` when its constructor has
 * a name, any other as `[object <Tag>]` (its `Symbol.toStringTag` data property, else its
 * class). No getter is called but a built-in class's tag getter; a proxy's traps are run
 * (V8 runs none), and one that throws makes the text `[object Object]`.
 * @param {unknown} thrown
 */
export function describedThrown(thrown) {
  if (typeof thrown === "symbol") return thrown.toString();
  if (typeof thrown === "function") return Function.prototype.toString.call(thrown);
  if (thrown === null || typeof thrown !== "object") return String(thrown);
  try {
    const toString = dataProperty(thrown, "toString");
    if (isError(thrown) || toString === Error.prototype.toString) {
      const [name, message] = ["name", "message"].map((key) => dataProperty(thrown, key)).map((text) => (typeof text === "string" ? text : ""));
      return name === "" ? message : message === "" ? name : `${name}: ${message}`;
    }
    if (toString === Object.prototype.toString) {
      const made = dataProperty(thrown, "constructor");
      const name = typeof made === "function" ? dataProperty(made, "name") : undefined;
      if (typeof name === "string" && name !== "") return `#<${name}>`;
    }
    const tag = dataProperty(thrown, Symbol.toStringTag);
    return typeof tag === "string" ? `[object ${tag}]` : Object.prototype.toString.call(thrown);
  } catch {
    return "[object Object]";
  }
}

/** Standard, padded base64 of bytes. @param {Uint8Array} bytes */
export function base64(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
  return btoa(binary);
}

/** The bytes an `ArrayBuffer` or a view spans (no copy). @param {ArrayBuffer | ArrayBufferView} value */
export function bytesOf(value) {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
}

/**
 * Stored bytes as a store that keeps bytes for text is read back (a KV value, an S3 body):
 * their UTF-8 text when they are UTF-8, else the bytes in the log's encoding.
 * @param {Uint8Array} bytes @returns {string | {$: "bytes", v: string}}
 */
export function textOrBytes(bytes) {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { $: "bytes", v: base64(bytes) };
  }
}

/**
 * A Map or a Set, tagged (see the module's note); undefined for an array or a record.
 * @param {object} object @param {string} where @param {Set<object>} path @returns {unknown}
 */
function container(object, where, path) {
  if (object instanceof Map) {
    let i = 0;
    const pairs = [];
    for (const [key, item] of object) {
      pairs.push([encode(key, `${where} key ${i}`, path), encode(item, `${where}.get(key ${i})`, path)]);
      i++;
    }
    return { $: "map", v: pairs };
  }
  if (object instanceof Set) {
    let i = 0;
    const items = [];
    for (const item of object) items.push(encode(item, `${where} item ${i++}`, path));
    return { $: "set", v: items };
  }
  return undefined;
}

/** @param {unknown} value @param {string} where @param {Set<object>} path @returns {unknown} */
function encode(value, where, path) {
  switch (typeof value) {
    case "undefined":
      return null;
    case "boolean":
    case "string":
      return value;
    case "number":
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
    case "bigint":
      return { $: "bigint", v: value.toString() };
    case "function":
    case "symbol":
      throw new NotPlain(`${where} is a ${typeof value}`);
  }
  if (value === null) return null;
  const object = /** @type {object} */ (value);
  if (object instanceof ArrayBuffer || ArrayBuffer.isView(object)) return { $: "bytes", v: base64(bytesOf(object)) };
  if (object instanceof Date) {
    const time = object.getTime();
    return { $: "date", v: Number.isNaN(time) ? null : object.toISOString() };
  }
  if (object instanceof Error) return { $: "error", v: errorFields(object) };
  return encodeObject(object, where, path, encode, {
    refusal: "is not plain data",
    depthMax: DEPTH_MAX,
    other: (inner) => container(inner, where, path),
    keep: (item) => item !== undefined,
  });
}
