// @ts-check
/** The plan follower's turn decisions: prefix, then seeded, replay or first. */

import assert from "node:assert/strict";
import { test } from "node:test";

import { PlanFollower } from "../plan.mjs";
import { Xoshiro128 } from "../prng.mjs";

const OPTIONS = [{ kind: "effect", invocation: "msg-1#1", target: "D1:DB" }, { kind: "start", event: "msg-2" }, { kind: "timer" }];
const WORDS = [0x9e3779b9, 0x243f6a88, 0xb7e15162, 0x12345678];

test("first takes 0; a forced prefix comes first and an index out of range takes 0", () => {
  const follower = new PlanFollower({ prefix: [2, 7], policy: { kind: "first" }, maxFaults: 0, maxShortBatches: 0, streams: { turns: WORDS } });
  assert.deepEqual([0, 1, 2].map(() => follower.turnAt(OPTIONS).chosen), [2, 0, 0]);
  assert.deepEqual(follower.decisions[0], { kind: "turn", options: OPTIONS, chosen: 2, more: false });
});

test("seeded draws turns.below(len(options)) from the plan's turn words, only when the policy is asked", () => {
  const follower = new PlanFollower({ prefix: [1], policy: { kind: "seeded", faults: {} }, maxFaults: 0, maxShortBatches: 0, streams: { turns: WORDS } });
  const stream = new Xoshiro128(WORDS);
  const picks = [0, 1, 2, 3, 4].map(() => follower.turnAt(OPTIONS).chosen);
  assert.deepEqual(picks, [1, stream.below(3), stream.below(3), stream.below(3), stream.below(3)]);
});

test("replay takes the recorded picks in order, then the turn stream", () => {
  const follower = new PlanFollower({ prefix: [], policy: { kind: "replay", faults: [], turns: [2, 1], batches: [] }, maxFaults: 0, maxShortBatches: 0, streams: { turns: WORDS } });
  const stream = new Xoshiro128(WORDS);
  assert.deepEqual([0, 1, 2].map(() => follower.turnAt(OPTIONS).chosen), [2, 1, stream.below(3)]);
});

test("turns and faults share one decision list, so the prefix indexes both", () => {
  const follower = new PlanFollower({ prefix: [1, 1], policy: { kind: "first" }, maxFaults: 1, maxShortBatches: 0, streams: { turns: WORDS } });
  assert.equal(follower.turnAt(OPTIONS).chosen, 1);
  assert.equal(follower.faultAt("msg-1#1", 0, "D1:DB", ["crash_before", "error"]), "crash_before");
  assert.deepEqual(follower.decisions.map((d) => d.kind), ["turn", "fault"]);
});
