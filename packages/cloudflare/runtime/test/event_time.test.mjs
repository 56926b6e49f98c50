// @ts-check
/** When a drive's events are due (event_time.mjs): order of time, then of listing; none given keeps the listing. */

import assert from "node:assert/strict";
import { test } from "node:test";

import { timedEvents } from "../event_time.mjs";
import { EPOCH_MS } from "../globals.mjs";

test("events with atMs are due at the epoch plus it, in order of time then of listing", () => {
  const events = [{ id: "c", atMs: 5000 }, { id: "a", atMs: 0 }, { id: "b" }, { id: "d", atMs: 5000 }];
  const timed = timedEvents(events, EPOCH_MS + 3);
  assert.deepEqual(timed.map(({ event, index, due }) => [event.id, index, due - EPOCH_MS]), [["a", 1, 0], ["b", 2, 3], ["c", 0, 5000], ["d", 3, 5000]]);
});

test("a drive whose events carry no time keeps its order, each due when the drive starts", () => {
  const events = [{ id: "x" }, { id: "y" }, { id: "z" }];
  assert.deepEqual(timedEvents(events, 42).map(({ event, due }) => [event.id, due]), [["x", 42], ["y", 42], ["z", 42]]);
});
