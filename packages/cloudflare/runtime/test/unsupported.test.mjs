// @ts-check
/** unsupported.mjs: modelledOnly answers a record's own properties and marks the run for any other. */

import assert from "node:assert/strict";
import { test } from "node:test";

import { active } from "../active.mjs";
import { UnsupportedSignal } from "../effects.mjs";
import { modelledOnly } from "../unsupported.mjs";

test("modelledOnly: own properties pass, symbols, then and toJSON are undefined, anything else marks the run", () => {
  /** @type {[string, string][]} */
  const marked = [];
  active.run = /** @type {any} */ ({ markUnsupported: (/** @type {string} */ cause, /** @type {string} */ detail) => marked.push([cause, detail]) });
  try {
    const proxy = /** @type {any} */ (modelledOnly(Object.freeze({ get: () => "got" }), "KV", "CACHE"));
    assert.equal(proxy.get(), "got");
    assert.equal("get" in proxy, true);
    assert.equal("put" in proxy, false);
    assert.equal(proxy.then, undefined);
    assert.equal(proxy[Symbol.toStringTag], undefined);
    assert.equal(JSON.stringify(proxy), "{}");
    assert.deepEqual(marked, []);
    assert.throws(() => proxy.getAll(), UnsupportedSignal);
    assert.throws(() => { proxy.get = null; }, UnsupportedSignal);
    assert.deepEqual(marked, [
      ["binding_not_modelled", "KV binding CACHE: .getAll is not modelled"],
      ["binding_not_modelled", "KV binding CACHE: assigning .get is not modelled"],
    ]);
  } finally {
    active.run = null;
  }
});
