// @ts-check
/**
 * The load message's one rule: the compatibility date a Worker runs with. A date newer than the
 * pinned workerd supports runs with the newest it supports (as wrangler does); any other as asked.
 */

import assert from "node:assert/strict";
import { test } from "node:test";

import { NEWEST_COMPATIBILITY_DATE, supportedDate } from "../host/load.mjs";

test("a date past the newest supported runs with the newest; others as asked", () => {
  assert.equal(supportedDate("2026-11-01", "2026-07-30"), "2026-07-30");
  assert.equal(supportedDate("2026-07-30", "2026-07-30"), "2026-07-30");
  assert.equal(supportedDate("2025-01-31", "2026-07-30"), "2025-01-31");
});

test("the newest supported date is the pinned workerd package's, a YYYY-MM-DD date", () => {
  assert.match(NEWEST_COMPATIBILITY_DATE, /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/);
});
