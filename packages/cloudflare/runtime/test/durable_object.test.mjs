// @ts-check
/**
 * The Durable Object record's pure parts. What counts as plain data at the stub boundary and
 * how it is recorded is values.mjs's rule, held to core's vectors by values.test.mjs.
 */

import assert from "node:assert/strict";
import test from "node:test";

import { ALARM_FAULTS, ALARM_RETRIES_MAX } from "../bindings/durable_object.mjs";

test("an alarm takes no ambiguous outcome and is retried at most six times", () => {
  assert.deepEqual([...ALARM_FAULTS], ["crash_before", "crash_after", "error"]);
  assert.equal(ALARM_RETRIES_MAX, 6);
});
