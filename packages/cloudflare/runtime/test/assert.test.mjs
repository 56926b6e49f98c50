// @ts-check
/** assert.mjs: a broken invariant fails the run even when the Worker's code caught the throw. */

import nodeAssert from "node:assert/strict";
import { test } from "node:test";

import { active } from "../active.mjs";
import { EutaxyInternalError, assert } from "../assert.mjs";

test("a failed assert throws an EutaxyInternalError naming the invariant, and notes the first on the run", () => {
  const run = /** @type {any} */ ({ failure: null });
  active.run = run;
  try {
    // As user code would: the throw is caught and swallowed, the run still knows.
    try {
      assert(false, "ordinals increase within an invocation");
    } catch {
      // swallowed
    }
    nodeAssert.ok(run.failure instanceof EutaxyInternalError);
    nodeAssert.equal(run.failure.message, "eutaxy internal error: ordinals increase within an invocation");
    nodeAssert.throws(() => assert(0, () => "a second one"), { message: /a second one/ });
    nodeAssert.match(run.failure.message, /ordinals increase/, "the first failure is kept");
    assert(true, () => { throw new Error("a message is only built for a failure"); });
  } finally {
    active.run = null;
  }
});
