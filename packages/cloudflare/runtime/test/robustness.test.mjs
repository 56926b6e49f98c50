// @ts-check
/**
 * What a run does with what is not the Worker's ordinary work, on a real Run in Node (no
 * workerd): the machine's full storage ends the check as the environment's limit (never a D1
 * error the Worker sees, never an internal error), `process.exit` crashes only its invocation,
 * and a run past its own wall-clock limit ends UNSUPPORTED naming who was still at work.
 */

import assert from "node:assert/strict";
import { test } from "node:test";

import { CrashSignal, effectPoint } from "../effects.mjs";
import { UserFacingError, environmentLimit } from "../errors.mjs";
import { clearTurns, realTurn } from "../patch.mjs";
import { RUN_LIMIT_FACTOR, RUN_LIMIT_FLOOR_MS, Run } from "../run.mjs";
import { barePlan } from "./helpers.mjs";

/** @param {number} [effectHangMs] */
function sequentialRun(effectHangMs = 1000) {
  return new Run(barePlan({ effectHangMs }), {}, {});
}

/** An io point whose real I/O fails with `message`. @param {string} message @returns {import("../effects.mjs").PointSpec} */
function failingStatement(message) {
  return {
    kind: "io", target: "D1:DB", op: "run", args: { sql: "INSERT INTO t VALUES (1)", params: [] }, ladder: [],
    perform: async () => { throw new Error(message); },
    summarize: (value) => value,
  };
}

test("SQLite's full storage is the environment's limit, named; any other error is not", () => {
  const limit = environmentLimit(new Error("D1_ERROR: database or disk is full: SQLITE_FULL"));
  assert.ok(limit instanceof UserFacingError);
  assert.match(limit.message, /^the machine's storage for D1 is full \(SQLite said: D1_ERROR: database or disk is full: SQLITE_FULL\)/);
  assert.match(limit.message, /\/dev\/shm/);
  assert.match(limit.message, /not the Worker's/);
  assert.equal(environmentLimit(new Error("D1_ERROR: UNIQUE constraint failed: t.id")), null);
  assert.equal(environmentLimit({ toString() { throw new Error("no"); } }), null);
});

test("a statement failing for full storage fails the run with the limit; the Worker never sees it", async () => {
  const run = sequentialRun();
  const inv = run.startInvocation("msg-1#1");
  let settled = false;
  effectPoint(run, inv, failingStatement("D1_ERROR: database or disk is full: SQLITE_FULL")).then(() => { settled = true; }, () => { settled = true; });
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(settled, false, "the Worker's await never settles: it is not handed a D1 error");
  assert.ok(run.failure instanceof UserFacingError);
  assert.match(run.failure.message, /storage for D1 is full/);
  assert.equal(run.stopped, true);
  assert.deepEqual(run.effects.filter((effect) => effect.kind === "result"), [], "no result is recorded for it");
});

test("an ordinary D1 error is recorded and reaches the Worker", async () => {
  const run = sequentialRun();
  const inv = run.startInvocation("msg-1#1");
  await assert.rejects(effectPoint(run, inv, failingStatement("D1_ERROR: UNIQUE constraint failed: t.id")), /UNIQUE/);
  assert.equal(run.failure, null);
  assert.equal(run.effects.filter((effect) => effect.kind === "result").length, 1);
});

test("process.exit in the Worker's code crashes its invocation, with the call as its error", () => {
  const run = sequentialRun();
  const inv = run.startInvocation("msg-1#1");
  assert.throws(() => run.exitInvocation(1), CrashSignal);
  assert.equal(inv.crashed, true);
  const record = run.recordOutcome(inv, "queue", { kind: "crashed" });
  assert.equal(record?.outcome, "crashed");
  assert.equal(record?.error?.name, "ProcessExit");
  assert.match(record?.error?.message ?? "", /^process\.exit\(1\) was called; the runtime cancels the invocation there$/);
  assert.equal(run.stopped, false, "the run goes on: only the invocation crashed");
});

test("a crash by an injected fault carries no error", () => {
  const run = sequentialRun();
  const inv = run.startInvocation("msg-1#1");
  inv.crash();
  assert.equal(run.recordOutcome(inv, "queue", { kind: "crashed" })?.error, undefined);
});

test("a run's own limit is a multiple of its effect hang bound, with a floor; past it the run is UNSUPPORTED naming who ran", () => {
  assert.equal(sequentialRun(1000).runLimitMs, RUN_LIMIT_FLOOR_MS);
  assert.equal(sequentialRun(60_000).runLimitMs, RUN_LIMIT_FACTOR * 60_000);
  const run = sequentialRun(60_000);
  run.startInvocation("msg-1#1");
  run.record("D1:DB", "run", "call", { args: {} }, "msg-1#1", 0, run.clock.now);
  run.overRunLimit();
  assert.equal(run.unsupported?.cause, "run_time_limit");
  assert.match(run.unsupported?.detail ?? "", /^the run went on past its own limit of 180000 ms of real time \(3 times the effect hang bound, effectHangMs 60000\); msg-1#1 was still running \(the last effect: D1:DB run #0 of msg-1#1\)/);
});

test("a run past its limit ends at its next effect point, even while its timers do not fire", () => {
  const run = sequentialRun();
  run.startInvocation("msg-1#1");
  run.record("D1:DB", "run", "call", { args: {} }, "msg-1#1", 0, run.clock.now);
  assert.equal(run.unsupported, null);
  run.startedAtMs -= run.runLimitMs + 1;
  run.record("D1:DB", "run", "call", { args: {} }, "msg-1#1", 1, run.clock.now);
  assert.equal(run.unsupported?.cause, "run_time_limit");
  assert.match(run.unsupported?.detail ?? "", /the last effect: D1:DB run #1 of msg-1#1/);
});

test("an invocation's end clears the zero timers its wait left pending", async () => {
  const owner = {};
  let resolved = 0;
  realTurn(owner).then(() => { resolved++; });
  clearTurns(owner);
  await realTurn(owner).then(() => { resolved++; });
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(resolved, 1, "the cleared turn never resolves; a later one does");
});
