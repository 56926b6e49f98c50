// @ts-check
/**
 * The Durable Object record's pure parts: what counts as plain data at the stub boundary
 * (anything else is a capability whose calls would bypass the proxy) and how it is recorded.
 */

import assert from "node:assert/strict";
import test from "node:test";

import { ALARM_FAULTS, ALARM_RETRIES_MAX, isPlain, recorded } from "../bindings/durable_object.mjs";

test("JSON values, undefined, dates, bytes, maps and sets are plain data; functions and class instances are not", () => {
  const plain = [null, undefined, 1, "a", true, 2n, [1, [2]], { a: { b: [null] } }, new Date(0), new Uint8Array([1]), new ArrayBuffer(2), Object.create(null), new Map([["a", 1]]), new Set([1])];
  plain.forEach((value, index) => assert.equal(isPlain(value), true, `plain[${index}]`));
  class Handle {}
  const capabilities = [() => 1, new Handle(), { nested: new Handle() }, [new Map([[1, () => 1]])], new Set([new Handle()]), Promise.resolve(1)];
  capabilities.forEach((value, index) => assert.equal(isPlain(value), false, `capabilities[${index}]`));
});

test("plain data is recorded as JSON can carry it: bytes as numbers, undefined as null, a date in ISO form, a map as pairs", () => {
  assert.deepEqual(recorded({ a: undefined, b: new Uint8Array([1, 2]), c: [new Date(0)], d: new ArrayBuffer(1), e: new Map([["k", new Set([1])]]) }),
    { a: null, b: [1, 2], c: ["1970-01-01T00:00:00.000Z"], d: [0], e: [["k", [1]]] });
});

test("an alarm takes no ambiguous outcome and is retried at most six times", () => {
  assert.deepEqual([...ALARM_FAULTS], ["crash_before", "crash_after", "error"]);
  assert.equal(ALARM_RETRIES_MAX, 6);
});
