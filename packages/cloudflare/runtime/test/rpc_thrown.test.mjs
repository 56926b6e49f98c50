// @ts-check
/**
 * What a value the Worker behind a service binding throws reaches its caller as (bindings/service.mjs
 * `thrownAcross`, the one rule), held to real workerd: every case of rpc_thrown.json is thrown by
 * a callee Worker's RPC method on Miniflare and caught by a caller Worker over a real service
 * binding, under each of the file's settings (compatibility dates and flags on either side), and
 * the caller must see what the file says for that setting; the model's rule, applied here to the
 * same value with each side's setting, must give the same. test_callee_workerd.py holds a callee
 * run by Eutaxy to the file too.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";

import { NODE_MODULES, TEST_DIR } from "./helpers.mjs";
import { thrownAcross } from "../bindings/service.mjs";
import { describedThrown } from "../values.mjs";

/** @typedef {{date: string, flags: string[]}} Side */
/** @typedef {"caller" | "enhanced" | "callerOnly"} Seen */
/**
 * @type {{observe: string, settings: {setting: string, caller: Side, callee: Side, sees: string}[],
 *   cases: ({case: string, throw: string} & Record<Seen, object>)[]}}
 */
const VECTORS = JSON.parse(readFileSync(path.join(TEST_DIR, "rpc_thrown.json"), "utf8"));

/** What the caller's catch records of what it caught (the file's source, the same on both sides). */
const OBSERVE = VECTORS.observe;

/** @type {(caught: unknown) => object} */
const observing = (0, eval)(OBSERVE);

/** The observation as the real caller's reaches this test, through JSON. @param {unknown} caught */
const observe = (caught) => JSON.parse(JSON.stringify(observing(caught)));

/** Which of a case's observations a setting sees (`legacy` is the file's `caller`). @param {string} sees @returns {Seen} */
const seenAs = (sees) => (sees === "legacy" ? "caller" : /** @type {Seen} */ (sees));

/** Each side's enhanced_error_serialization for the model, by the three observations. */
const SIDES = /** @type {Record<Seen, {caller: boolean, callee: boolean}>} */ ({
  caller: { caller: false, callee: true }, enhanced: { caller: true, callee: true }, callerOnly: { caller: true, callee: false },
});

test("the model's rule gives each case what the file says the caller sees under each setting", () => {
  for (const seen of /** @type {Seen[]} */ (["caller", "enhanced", "callerOnly"])) {
    for (const vector of VECTORS.cases) {
      const thrown = (0, eval)(`(${vector.throw})`);
      assert.deepEqual(observe(thrownAcross(thrown, SIDES[seen])), vector[seen], `${vector.case} (${seen})`);
    }
  }
  const thrown = (0, eval)(`(${VECTORS.cases[0].throw})`);
  assert.deepEqual(observe(thrownAcross(thrown, { caller: false, callee: false })), VECTORS.cases[0].caller);
});

test("a thrown value's text is V8's, never running its code", () => {
  let ran = false;
  const sneaky = { get name() { ran = true; return "x"; }, toString() { ran = true; return "x"; } };
  assert.equal(describedThrown(sneaky), "[object Object]");
  assert.equal(describedThrown({ get constructor() { ran = true; return Map; } }), "[object Object]");
  assert.equal(describedThrown(Object.assign(new Error("m"), { name: "" })), "m");
  assert.equal(describedThrown(Object.assign(new Error(""), { name: "SoldOut" })), "SoldOut");
  assert.equal(ran, false);
});

test("a real service binding delivers each case as the file says under each setting", async () => {
  const { Miniflare } = createRequire(path.join(NODE_MODULES, "eutaxy-host.js"))("miniflare");
  const methods = VECTORS.cases.map((vector, i) => `  async m${i}() { throw (${vector.throw}); }`).join("\n");
  const callee = `import { WorkerEntrypoint } from "cloudflare:workers";\nexport class Thrower extends WorkerEntrypoint {\n${methods}\n}\nexport default { fetch() { return new Response("rpc only"); } };`;
  const caller = `const observe = ${OBSERVE};
export default {
  async fetch(request, env) {
    const seen = [];
    for (let i = 0; i < ${VECTORS.cases.length}; i++) {
      try { await env.THROWER["m" + i](); seen.push("returned"); } catch (e) { seen.push(observe(e)); }
    }
    return Response.json(seen);
  },
};`;
  for (const { setting, caller: callerSide, callee: calleeSide, sees } of VECTORS.settings) {
    const mf = new Miniflare({
      workers: [
        { name: "caller", modules: true, script: caller, compatibilityDate: callerSide.date, compatibilityFlags: callerSide.flags, serviceBindings: { THROWER: { name: "thrower", entrypoint: "Thrower" } } },
        { name: "thrower", modules: true, script: callee, compatibilityDate: calleeSide.date, compatibilityFlags: calleeSide.flags },
      ],
    });
    try {
      const seen = await (await mf.dispatchFetch("http://caller/")).json();
      VECTORS.cases.forEach((vector, i) => assert.deepEqual(seen[i], vector[seenAs(sees)], `${vector.case} (${setting})`));
    } finally {
      await mf.dispose();
    }
  }
});
