// @ts-check
/**
 * The plan follower takes the forced prefix, then the policy, at eligible points only, and
 * records every decision so Python can extend or replay the choice sequence.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import test from "node:test";

import { PlanFollower } from "../plan.mjs";
import { REPO, platformLadders } from "./helpers.mjs";

// The platform's ladders as the load message carries them (core's vectors/ladders.json).
const { write: WRITE_FAULTS, read: READ_FAULTS, decision: DECISION_FAULTS } = platformLadders();

const VECTORS = path.join(REPO, "packages/core/src/eutaxy/core/vectors/follower.json");

/**
 * A whole plan as core.protocol's RunPlan.to_data writes it, with `fields` over it.
 * @param {object} fields
 */
function plan(fields) {
  return { prefix: [], policy: { kind: "first" }, maxFaults: 1, maxShortBatches: 0, streams: { turns: [1, 0, 0, 0] }, ...fields };
}

test("first takes option 0 everywhere and counts eligible points", () => {
  const f = new PlanFollower(plan({ policy: { kind: "first" }, maxFaults: 1 }));
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
  const f = new PlanFollower(plan({ prefix: [0, 9], policy: { kind: "first" }, maxFaults: 2 }));
  assert.equal(f.faultAt("a#1", 0, "D1:DB", READ_FAULTS), "none");
  assert.equal(f.faultAt("a#1", 1, "D1:DB", READ_FAULTS), "none");
  assert.equal(f.decisions[1].chosen, 0);
  const g = new PlanFollower(plan({ prefix: [2], policy: { kind: "first" }, maxFaults: 1 }));
  assert.equal(g.faultAt("a#1", 0, "D1:DB", WRITE_FAULTS), "crash_after");
});

test("no decision is offered once maxFaults faults were injected", () => {
  const f = new PlanFollower(plan({ prefix: [1], policy: { kind: "first" }, maxFaults: 1 }));
  assert.equal(f.faultAt("a#1", 0, "D1:DB", WRITE_FAULTS), "crash_before");
  assert.equal(f.faultAt("a#2", 0, "D1:DB", WRITE_FAULTS), "none");
  assert.equal(f.decisions.length, 1);
  assert.equal(f.eligible, 1);
  const none = new PlanFollower(plan({ policy: { kind: "first" }, maxFaults: 0 }));
  assert.equal(none.faultAt("a#1", 0, "D1:DB", WRITE_FAULTS), "none");
  assert.equal(none.eligible, 0);
});

test("seeded looks the eligible ordinal up: a kind draw picks allowed[draw % len]", () => {
  const f = new PlanFollower(plan({ policy: { kind: "seeded", faults: { "1": 6 } }, maxFaults: 3 }));
  assert.equal(f.faultAt("a#1", 0, "D1:DB", WRITE_FAULTS), "none");
  assert.equal(f.faultAt("a#1", 1, "D1:DB", WRITE_FAULTS), "ambiguous"); // 6 % 4 = 2
  const g = new PlanFollower(plan({ policy: { kind: "seeded", faults: { "0": 5 } }, maxFaults: 1 }));
  assert.equal(g.faultAt("a#1", 0, "Queue:q", DECISION_FAULTS), "crash_after"); // 5 % 2 = 1
});

test("replay keys faults by invocation and ordinal, not by position", () => {
  const f = new PlanFollower(plan({ policy: { kind: "replay", faults: [{ invocation: "msg-2#1", ordinal: 1, fault: "error" }], turns: [], batches: [] }, maxFaults: 1 }));
  assert.equal(f.faultAt("msg-1#1", 1, "D1:DB", WRITE_FAULTS), "none");
  assert.equal(f.faultAt("msg-2#1", 0, "D1:DB", WRITE_FAULTS), "none");
  assert.equal(f.faultAt("msg-2#1", 1, "D1:DB", WRITE_FAULTS), "error");
});

test("an unknown policy is refused", () => {
  assert.throws(() => new PlanFollower(plan({ policy: /** @type {any} */ ({ kind: "random" }) })), /unknown policy/);
});

test("a plan without maxFaults fails loudly, naming it (never read as 0)", () => {
  const { maxFaults: _, ...without } = plan({});
  assert.throws(() => new PlanFollower(/** @type {any} */ (without)), /plan: maxFaults is missing/);
  assert.throws(() => new PlanFollower(plan({ maxFaults: /** @type {any} */ ("1") })), /plan: maxFaults: expected a non-negative integer/);
});

test("core's follower vectors: the same answers, decisions and counts as engine/follower.py", () => {
  const data = JSON.parse(readFileSync(VECTORS, "utf8"));
  assert.ok(data.cases.length > 0, "the vector file holds no cases");
  for (const c of data.cases) {
    const f = new PlanFollower(c.plan);
    const answers = c.points.map((/** @type {any} */ p) =>
      p.kind === "fault" ? f.faultAt(p.invocation, p.ordinal, p.target, p.ladder)
        : p.kind === "batch" ? f.batchAt(p.invocation, p.target, p.count)
        : f.turnAt(p.options).chosen);
    assert.deepEqual(answers, c.answers, `answers: ${c.name}`);
    assert.deepEqual(f.decisions, c.decisions, `decisions: ${c.name}`);
    assert.equal(f.eligible, c.eligible, `eligible: ${c.name}`);
    assert.equal(f.faultsInjected, c.faultsInjected, `faults injected: ${c.name}`);
    // The runtime counts no misalignment; Python reads it off the decisions the same way.
    const prefix = c.plan.prefix ?? [];
    const misaligned = f.decisions.filter((d, i) => i < prefix.length && d.chosen !== prefix[i]).length;
    assert.equal(misaligned, c.misaligned, `misaligned: ${c.name}`);
  }
  for (const r of data.refused) {
    assert.throws(() => new PlanFollower(r.plan), (/** @type {Error} */ error) => error.message.startsWith("plan: ") && error.message.includes(r.names), r.name);
  }
});
