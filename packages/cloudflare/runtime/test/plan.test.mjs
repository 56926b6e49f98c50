// @ts-check
/**
 * The plan follower takes the forced prefix, then the policy, at eligible points only, and
 * records every decision so Python can extend or replay the choice sequence.
 */

import assert from "node:assert/strict";
import test from "node:test";

import { DECISION_FAULTS, READ_FAULTS, WRITE_FAULTS } from "../effects.mjs";
import { PlanFollower } from "../plan.mjs";

test("first takes option 0 everywhere and counts eligible points", () => {
  const f = new PlanFollower({ policy: { kind: "first" }, maxFaults: 1 });
  assert.equal(f.faultAt("msg-1#1", 0, "D1:DB", WRITE_FAULTS), "none");
  assert.equal(f.faultAt("msg-1#1", 1, "Queue:q", []), "none");
  assert.equal(f.faultAt("msg-1#1", 2, "Queue:q", DECISION_FAULTS), "none");
  assert.equal(f.eligible, 2);
  assert.deepEqual(f.decisions[0], {
    kind: "fault", invocation: "msg-1#1", ordinal: 0, target: "D1:DB",
    options: ["none", "crash_before", "crash_after", "ambiguous", "error"], chosen: 0,
  });
  assert.deepEqual(f.decisions[1].options, ["none", "crash_before", "crash_after"]);
});

test("the prefix is taken first, then the policy; an index out of range takes option 0", () => {
  const f = new PlanFollower({ prefix: [0, 9], policy: { kind: "first" }, maxFaults: 2 });
  assert.equal(f.faultAt("a#1", 0, "D1:DB", READ_FAULTS), "none");
  assert.equal(f.faultAt("a#1", 1, "D1:DB", READ_FAULTS), "none");
  assert.equal(f.decisions[1].chosen, 0);
  const g = new PlanFollower({ prefix: [2], policy: { kind: "first" }, maxFaults: 1 });
  assert.equal(g.faultAt("a#1", 0, "D1:DB", WRITE_FAULTS), "crash_after");
});

test("no decision is offered once maxFaults faults were injected", () => {
  const f = new PlanFollower({ prefix: [1], policy: { kind: "first" }, maxFaults: 1 });
  assert.equal(f.faultAt("a#1", 0, "D1:DB", WRITE_FAULTS), "crash_before");
  assert.equal(f.faultAt("a#2", 0, "D1:DB", WRITE_FAULTS), "none");
  assert.equal(f.decisions.length, 1);
  assert.equal(f.eligible, 1);
  const none = new PlanFollower({ policy: { kind: "first" }, maxFaults: 0 });
  assert.equal(none.faultAt("a#1", 0, "D1:DB", WRITE_FAULTS), "none");
  assert.equal(none.eligible, 0);
});

test("seeded looks the eligible ordinal up: a kind draw picks allowed[draw % len], a name only if allowed", () => {
  const f = new PlanFollower({ policy: { kind: "seeded", faults: { "1": 6, "2": "ambiguous" } }, maxFaults: 3 });
  assert.equal(f.faultAt("a#1", 0, "D1:DB", WRITE_FAULTS), "none");
  assert.equal(f.faultAt("a#1", 1, "D1:DB", WRITE_FAULTS), "ambiguous"); // 6 % 4 = 2
  assert.equal(f.faultAt("a#1", 2, "Queue:q", DECISION_FAULTS), "none"); // not allowed there
  const g = new PlanFollower({ policy: { kind: "seeded", faults: { "0": 5 } }, maxFaults: 1 });
  assert.equal(g.faultAt("a#1", 0, "Queue:q", DECISION_FAULTS), "crash_after"); // 5 % 2 = 1
});

test("replay keys faults by invocation and ordinal, not by position", () => {
  const f = new PlanFollower({ policy: { kind: "replay", faults: [{ invocation: "msg-2#1", ordinal: 1, fault: "error" }], turns: [] }, maxFaults: 1 });
  assert.equal(f.faultAt("msg-1#1", 1, "D1:DB", WRITE_FAULTS), "none");
  assert.equal(f.faultAt("msg-2#1", 0, "D1:DB", WRITE_FAULTS), "none");
  assert.equal(f.faultAt("msg-2#1", 1, "D1:DB", WRITE_FAULTS), "error");
});

test("an unknown policy is refused", () => {
  assert.throws(() => new PlanFollower({ policy: /** @type {any} */ ({ kind: "random" }) }), /unknown policy/);
});
