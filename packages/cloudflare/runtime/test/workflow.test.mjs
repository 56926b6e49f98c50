// @ts-check
/** The Workflow record's engine rules that need no isolate: durations and retry delays as the engine reads them. */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import test from "node:test";

import { durationMs, retryDelayMs } from "../bindings/workflow.mjs";
import { REPO } from "./helpers.mjs";

test("a duration is read as the engine reads it: a number or numeric string is milliseconds, a unit multiplies", () => {
  assert.equal(durationMs(1500), 1500);
  assert.equal(durationMs("250"), 250);
  assert.equal(durationMs("10 seconds"), 10_000);
  assert.equal(durationMs("1 minute"), 60_000);
  assert.equal(durationMs("2 hours"), 7_200_000);
  assert.equal(durationMs("1 year"), 365.25 * 86_400_000);
  assert.ok(Number.isNaN(durationMs("soon")));
});

test("a retry's delay follows the backoff: exponential doubles per attempt, linear multiplies, constant stays", () => {
  const { policies } = JSON.parse(readFileSync(path.join(REPO, "packages/cloudflare/src/eutaxy/cloudflare/bindings/ladders.json"), "utf8"));
  const { delayMs, backoff } = policies.workflow.stepRetries;
  const retries = { delay: delayMs, backoff };
  assert.deepEqual([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(retries, attempt)), [10_000, 20_000, 40_000, 80_000, 160_000]);
  assert.deepEqual([1, 2, 3].map((attempt) => retryDelayMs({ delay: "5 seconds", backoff: "linear" }, attempt)), [5000, 10_000, 15_000]);
  assert.deepEqual([1, 2, 3].map((attempt) => retryDelayMs({ delay: 700, backoff: "constant" }, attempt)), [700, 700, 700]);
});
