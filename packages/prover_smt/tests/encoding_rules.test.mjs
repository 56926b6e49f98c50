// @ts-check
/**
 * Every row of core's vectors/encoding_rules.json is what Node says: the expression, run with
 * the file's module constants declared before it, gives the row's value (compared by
 * Object.is, so -0 and NaN count). The SMT engine's side of the same rows is
 * tests/test_encoding_rules.py, which also runs this file with the pinned Node and hands it
 * the vector file (EUTAXY_ENCODING_RULES) and the value encoding's module (EUTAXY_SPEC_VALUES).
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";
import { pathToFileURL } from "node:url";

const rulesPath = process.env.EUTAXY_ENCODING_RULES;
const valuesPath = process.env.EUTAXY_SPEC_VALUES;
if (!rulesPath || !valuesPath) throw new Error("EUTAXY_ENCODING_RULES and EUTAXY_SPEC_VALUES must name the vector file and values.mjs");
const { decode } = await import(pathToFileURL(valuesPath).href);
const { rows } = JSON.parse(readFileSync(rulesPath, "utf8"));

/** The file's constants in order, as one prelude (the types are the reader's business, not Node's). */
const prelude = rows.flatMap((/** @type {any} */ row) => row.consts)
  .map((/** @type {any} */ c) => `const ${c.name} = ${c.init};`).join("\n");

test("the vector file has rows of every kind the issue lists", () => {
  for (const word of ["nullish", "constant", "percent", "divide", "round", "NaN", "2^53", "string"]) {
    assert.ok(rows.some((/** @type {any} */ row) => row.name.includes(word)), `no row about ${word}`);
  }
});

for (const row of rows) {
  test(`${row.name}: ${row.expr}`, () => {
    const run = new Function(`${prelude}\nconst _x = 1;\nreturn (${row.expr});`);
    const got = run();
    const want = decode(row.value);
    assert.ok(Object.is(got, want), `${row.expr} is ${String(got)} in Node, the vector says ${String(want)}`);
  });
}
