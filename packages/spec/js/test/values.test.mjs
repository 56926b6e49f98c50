// @ts-check
/**
 * js/values.mjs must read and write exactly what eutaxy.spec.values does: both are held to
 * the shared vector file. Each vector's expression encodes to its `encoded`, and `encoded`
 * decodes to a value that encodes back to it; each inexact vector is refused with its reason.
 * Run by tests/test_values.py with the pinned Node (node --test).
 *
 * The encoder under test is js/values.mjs's `exact`, or the `exact` of the module whose file
 * URL EUTAXY_EXACT_MODULE names: packages/cli/tests/test_exact_values.py holds the Cloudflare
 * runtime's encoder module (runtime/exact.mjs, which re-exports this one) to these vectors that way. Decoding is always
 * js/values.mjs's.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";

import { decode } from "../values.mjs";

const EXACT_MODULE = process.env.EUTAXY_EXACT_MODULE || new URL("../values.mjs", import.meta.url).href;
/** @type {(value: unknown) => import("../values.mjs").Exact} */
const exact = (await import(EXACT_MODULE)).exact;

const VECTORS = new URL("../../src/eutaxy/spec/value_vectors.json", import.meta.url);
const data = JSON.parse(readFileSync(VECTORS, "utf8"));

/**
 * Equal by Object.is at every leaf (so -0, NaN and bigints are told apart), arrays and
 * records by their own keys in order; prototypes are not compared (a decoded record is a
 * plain object). @param {unknown} a @param {unknown} b @returns {boolean}
 */
function same(a, b) {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Array.isArray(a) ? [...a.keys()].map(String) : Object.keys(a);
  const other = Array.isArray(b) ? [...b.keys()].map(String) : Object.keys(b);
  return keys.length === other.length && keys.every((k, i) => k === other[i] && same(/** @type {any} */ (a)[k], /** @type {any} */ (b)[k]));
}

/** @param {string} source */
function evaluate(source) {
  return new Function(`return (${source});`)();
}

test(`the encoder under test is exact from ${EXACT_MODULE}`, () => {
  assert.equal(typeof exact, "function");
});

test("the vector file holds vectors of both kinds", () => {
  assert.ok(data.vectors.length > 10, "too few vectors");
  assert.ok(data.inexact.length > 0, "no inexact vectors");
});

for (const vector of data.vectors) {
  test(`encodes and decodes ${vector.name}`, () => {
    assert.deepEqual(exact(evaluate(vector.js)), { ok: true, value: vector.encoded });
    const decoded = decode(vector.encoded);
    assert.deepEqual(exact(decoded), { ok: true, value: vector.encoded });
    assert.ok(same(decoded, evaluate(vector.js)), "the decoded value is the expression's value");
  });
}

for (const vector of data.inexact) {
  test(`refuses ${vector.name}`, () => {
    assert.deepEqual(exact(evaluate(vector.js)), { ok: false, why: vector.why });
  });
}

test("same tells -0 from 0 and NaN from itself's absence", () => {
  assert.ok(!same(-0, 0) && same(NaN, NaN) && !same(1n, 1) && !same({ a: -0 }, { a: 0 }) && !same([1], [1, 2]));
});

test("an unknown tag is refused when decoding", () => {
  assert.throws(() => decode({ $: "date", v: "0" }), /unknown value tag "date"/);
  assert.throws(() => decode({ $: "number", v: "1e999" }), /unknown special number/);
});
