// @ts-check
/**
 * The exact reading of Core decisions (exact.mjs) and the decision payload (core.mjs): the
 * canonical `args`/`result` stay JSON's reading, and `argsExact`/`resultExact` carry, in the
 * spec ladder's value encoding, what JSON loses. packages/cli/tests/test_exact_values.py
 * checks that this encoding agrees with the prover's.
 */

import assert from "node:assert/strict";
import test from "node:test";

import { decisionPayload } from "../core.mjs";
import { exact } from "../exact.mjs";

/** @param {unknown} value */
function encoded(value) {
  const out = exact(value);
  assert.ok(out.ok, JSON.stringify(out));
  return out.value;
}

/** The canonical reading core.mjs takes (JSON's). @param {unknown} value */
function plain(value) {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? null : JSON.parse(text);
  } catch {
    return String(value);
  }
}

test("the special values take the ladder's tags; plain values stay JSON", () => {
  assert.deepEqual(encoded([-0, 0, NaN, Infinity, -Infinity, undefined, 12n, -12n, 1.5, "s", true, null]), [
    { $: "number", v: "-0" }, 0, { $: "number", v: "NaN" }, { $: "number", v: "Infinity" }, { $: "number", v: "-Infinity" },
    { $: "undefined" }, { $: "bigint", v: "12" }, { $: "bigint", v: "-12" }, 1.5, "s", true, null,
  ]);
  assert.deepEqual(encoded(2n ** 70n), { $: "bigint", v: "1180591620717411303424" });
  assert.deepEqual(encoded({ a: 1, b: [2, { c: "d" }] }), { a: 1, b: [2, { c: "d" }] });
});

test("records keep their undefined fields and key order; a $ key is wrapped; holes read as undefined", () => {
  assert.deepEqual(encoded({ z: undefined, a: -0 }), { z: { $: "undefined" }, a: { $: "number", v: "-0" } });
  assert.deepEqual(Object.keys(/** @type {object} */ (encoded({ z: 1, a: 2 }))), ["z", "a"]);
  assert.deepEqual(encoded({ $: "bigint", v: "1" }), { $: "object", v: { $: "bigint", v: "1" } });
  assert.deepEqual(encoded(Object.assign(Object.create(null), { k: 1n })), { k: { $: "bigint", v: "1" } });
  assert.deepEqual(encoded([1, , 3]), [1, { $: "undefined" }, 3]); // eslint-disable-line no-sparse-arrays
  const proto = encoded(JSON.parse('{"__proto__": 1}'));
  assert.deepEqual(Object.keys(/** @type {object} */ (proto)), ["__proto__"]);
});

test("lone surrogates cross JSON intact", () => {
  const text = "a\ud800b\udfff";
  assert.equal(JSON.parse(JSON.stringify(encoded([text])))[0], text);
});

test("values the encoding cannot carry are named, not guessed", () => {
  const cycle = /** @type {any} */ ({});
  cycle.self = cycle;
  class Money {
    cents = 1;
  }
  for (const [value, why] of /** @type {[unknown, RegExp][]} */ ([
    [[new Date(0)], /args\[0\] is a Date/], [[1, new Map()], /args\[1\] is a Map/], [[{ m: new Money() }], /args\[0\]\.m is a Money/],
    [[() => 1], /args\[0\] is a function/], [[Symbol("s")], /is a symbol/], [[cycle], /args\[0\]\.self is a cycle/],
    [[new Uint8Array(1)], /Uint8Array/],
  ])) {
    const out = exact(value, "args");
    assert.equal(out.ok, false);
    assert.match(/** @type {any} */ (out).why, why);
  }
  // A getter that throws fails the reading, never the caller.
  const out = exact([{ get boom() { throw new Error("no"); } }], "args");
  assert.deepEqual(out, { ok: false, why: "args could not be read: no" });
  // The same object twice side by side is not a cycle.
  const shared = { n: -0 };
  assert.deepEqual(encoded([shared, shared]), [{ n: { $: "number", v: "-0" } }, { n: { $: "number", v: "-0" } }]);
});

test("a decision's payload adds the exact readings only where the canonical ones lose something", () => {
  const payload = (/** @type {unknown[]} */ args, /** @type {unknown} */ result) => decisionPayload(plain(args), exact(args, "args"), result);
  // Plain calls: the payload is exactly what it always was.
  assert.deepEqual(payload([0, 5], { total: 5 }), { args: [0, 5], result: { total: 5 } });
  assert.deepEqual(payload(["s", null, { a: [1] }], "total 5"), { args: ["s", null, { a: [1] }], result: "total 5" });
  // -0, NaN, Infinity, undefined: the canonical reading stays JSON's; the exact one is beside it.
  assert.deepEqual(payload([-0, NaN, Infinity, undefined], { x: undefined, y: -0 }), {
    args: [0, null, null, null], result: { y: 0 },
    argsExact: [{ $: "number", v: "-0" }, { $: "number", v: "NaN" }, { $: "number", v: "Infinity" }, { $: "undefined" }],
    resultExact: { x: { $: "undefined" }, y: { $: "number", v: "-0" } },
  });
  // A bigint argument still makes the canonical list a string (the log's reading, unchanged); the exact one is a list.
  assert.deepEqual(payload([1n, 2], 3n), { args: "1,2", result: "3", argsExact: [{ $: "bigint", v: "1" }, 2], resultExact: { $: "bigint", v: "3" } });
  assert.deepEqual(payload([1], undefined), { args: [1], result: null, resultExact: { $: "undefined" } });
  // Arguments the encoding cannot carry: said, and no exact reading.
  assert.deepEqual(payload([new Date(0)], 1), { args: ["1970-01-01T00:00:00.000Z"], result: 1, argsInexact: "args[0] is a Date, which the value encoding cannot carry" });
  // A result the encoding cannot carry keeps its canonical reading only.
  assert.deepEqual(payload([1], new Date(0)), { args: [1], result: "1970-01-01T00:00:00.000Z" });
});
