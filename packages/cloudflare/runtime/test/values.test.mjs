// @ts-check
/**
 * runtime/values.mjs writes what core's vectors/values.json says, row by row; Python's
 * eutaxy.core.values is held to the same file (packages/core/tests/test_values.py), so a
 * changed row fails both suites.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import test from "node:test";

import { DEPTH_MAX, errorFields, logged, plainData, read, textOrBytes } from "../values.mjs";
import { REPO } from "./helpers.mjs";

const data = JSON.parse(readFileSync(path.join(REPO, "packages/core/src/eutaxy/core/vectors/values.json"), "utf8"));

/** @param {string} source the vector file's own expression */
function evaluate(source) {
  return new Function(`return (${source});`)();
}

test("each row's value is logged as the row says, key order included, and is plain data", () => {
  assert.ok(data.rows.length > 0, "the vector file holds no rows");
  for (const row of data.rows) {
    const value = evaluate(row.js);
    assert.equal(plainData(value), true, row.name);
    assert.equal(JSON.stringify(logged(value)), JSON.stringify(row.logged), row.name);
  }
});

test("what is not plain data is refused, naming where it is", () => {
  const rows = data.notPlain.filter((/** @type {any} */ row) => row.js !== undefined);
  assert.ok(rows.length > 0, "the vector file holds no notPlain rows for JavaScript");
  for (const row of rows) {
    const value = evaluate(row.js);
    assert.equal(plainData(value), false, row.name);
    assert.deepEqual(read(value), { ok: false, why: row.why }, row.name);
    assert.throws(() => logged(value), TypeError, row.name);
  }
});

test("stored bytes read as their text when UTF-8, else as bytes", () => {
  for (const row of data.storedBytes) assert.deepEqual(textOrBytes(Uint8Array.from(row.bytes)), row.read, row.name);
});

test("the depth bound holds: DEPTH_MAX nested arrays are plain data, one more is not", () => {
  /** @type {unknown} */
  let deep = 1;
  for (let i = 0; i < DEPTH_MAX; i++) deep = [deep];
  assert.equal(plainData(deep), true);
  assert.equal(plainData([deep]), false);
});

test("a getter that throws is a value that cannot be read, never an exception", () => {
  const value = { get broken() { throw new Error("no"); } };
  assert.deepEqual(read(value), { ok: false, why: "value could not be read: no" });
});

test("errorFields reads a thrown value that is not an Error as an Error of its text", () => {
  assert.deepEqual(errorFields("boom"), { name: "Error", message: "boom" });
  assert.deepEqual(errorFields(new RangeError("r")), { name: "RangeError", message: "r" });
});
