// @ts-check
/**
 * The Durable Object record's pure parts. What counts as plain data at the stub boundary and
 * how it is recorded is values.mjs's rule, held to core's vectors by values.test.mjs.
 */

import assert from "node:assert/strict";
import test from "node:test";

import { alarmRetryDelays, objectLadder } from "../bindings/durable_object.mjs";

test("an alarm's ladder and retries are the kind's policy, and a policy without them is Eutaxy's own bug", () => {
  const config = { kinds: { durable_object: { policy: { ladders: { alarm: ["crash_before"] }, alarmRetryDelaysMs: [5] }, bindings: {} } } };
  assert.deepEqual(objectLadder(config, "alarm"), ["crash_before"]);
  assert.deepEqual(alarmRetryDelays(config), [5]);
  const bare = { kinds: { durable_object: { policy: { ladders: {} }, bindings: {} } } };
  assert.throws(() => objectLadder(bare, "alarm"), /gives no ladder for alarm/);
  assert.throws(() => alarmRetryDelays(bare), /gives no alarmRetryDelaysMs/);
});
