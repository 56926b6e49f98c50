// @ts-check
/**
 * What a value the Worker behind a service binding throws reaches its caller as (bindings/service.mjs
 * `thrownAcross`, the one rule), held to real workerd: every case of rpc_thrown.json is thrown by
 * a callee Worker's RPC method on Miniflare and caught by a caller Worker over a real service
 * binding, and the caller must see what the file says; the model's rule, applied here to the same
 * value, must give the same. test_callee_workerd.py holds a callee run by Eutaxy to the file too.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";

import { NODE_MODULES, TEST_DIR } from "./helpers.mjs";
import { thrownAcross } from "../bindings/service.mjs";
import { describedThrown } from "../values.mjs";

/** @type {{cases: {case: string, throw: string, caller: object}[]}} */
const VECTORS = JSON.parse(readFileSync(path.join(TEST_DIR, "rpc_thrown.json"), "utf8"));

/** What the caller's catch records of what it caught, the same source on both sides. */
const OBSERVE = "(e) => ({ class: e?.constructor?.name ?? null, name: e?.name, message: e?.message, remote: e?.remote ?? null, code: e?.code ?? null })";

/** @type {(caught: unknown) => object} */
const observe = (0, eval)(OBSERVE);

test("the model's rule gives each case what the file says the caller sees", () => {
  for (const vector of VECTORS.cases) {
    const thrown = (0, eval)(`(${vector.throw})`);
    assert.deepEqual(observe(thrownAcross(thrown)), vector.caller, vector.case);
  }
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

test("a real service binding delivers each case as the file says", async () => {
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
  const mf = new Miniflare({
    workers: [
      { name: "caller", modules: true, script: caller, compatibilityDate: "2026-01-01", serviceBindings: { THROWER: { name: "thrower", entrypoint: "Thrower" } } },
      { name: "thrower", modules: true, script: callee, compatibilityDate: "2026-01-01" },
    ],
  });
  try {
    const seen = await (await mf.dispatchFetch("http://caller/")).json();
    VECTORS.cases.forEach((vector, i) => assert.deepEqual(seen[i], vector.caller, vector.case));
  } finally {
    await mf.dispose();
  }
});
