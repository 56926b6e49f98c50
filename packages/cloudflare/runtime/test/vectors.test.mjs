// @ts-check
/**
 * The runtime's copies of core's fault rules match core's vector files: the ladders per
 * point kind (eutaxy.core.faults), the redelivery rule (may_redeliver) and a produced
 * message's id (read back by eutaxy.engine.plans.event_of_invocation). Python's side reads the
 * same files (packages/core/tests/test_vectors.py, packages/engine/tests/test_plans.py), so a
 * change on one side alone fails one suite.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import test from "node:test";

import { alarmRetryDelays, objectLadder } from "../bindings/durable_object.mjs";
import { kindBindings } from "../bindings/policy.mjs";
import { messageOf, producedMessageId } from "../producer.mjs";
import { mayRedeliver, redeliveryStop } from "../queue.mjs";
import { Run } from "../run.mjs";
import { REPO, barePlan, kinds, kindPolicy, platformLadders, producerKind } from "./helpers.mjs";

const VECTORS = path.join(REPO, "packages/core/src/eutaxy/core/vectors");

/** @param {string} name */
function vectors(name) {
  return JSON.parse(readFileSync(path.join(VECTORS, name), "utf8"));
}

test("the runtime's ladders are core's: the load messages its tests send carry the vector file's", () => {
  // Every other effect point reads its ladder from the load message (effects.mjs ladderNamed),
  // which Python fills from eutaxy.core.faults (packages/core/tests/test_vectors.py holds
  // those to this file); the runtime's tests send this file's rows (helpers.mjs).
  const { ladders } = vectors("ladders.json");
  assert.deepEqual(platformLadders(), ladders);
  // Each row as the runtime's effect points document it (effects.mjs effectPoint gives each
  // fault's meaning), so a row changed on one side fails this suite as test_vectors.py fails Python's.
  const documented = {
    // A write's answer can be lost after it committed (ambiguous), or the call refused (error).
    write: ["crash_before", "crash_after", "ambiguous", "error"],
    // A read changes nothing, so a lost answer is no different from an error.
    read: ["crash_before", "crash_after", "error"],
    // An ack or retry (queue.mjs) is a decision: the invocation crashes around it.
    decision: ["crash_before", "crash_after"],
    // The http response (http.mjs): the caller never receives it; one it waits for past a deadline may be lost too.
    response: ["crash_before"],
    responseWithDeadline: ["crash_before", "ambiguous"],
    // The background point (background.mjs): work not yet started is cut off.
    background: ["cut_off"],
    // A Workflow step attempt (bindings/workflow.mjs; its kind's rows name these two): the instance
    // restarts before the step runs; after it, the result is not persisted (it runs again) or
    // counts as failed (it is retried).
    step: ["crash_before"],
    stepResult: ["crash_after", "ambiguous"],
    // A call through a service binding to a callee run for real (bindings/callee.mjs): it never
    // reached the callee, the answer was lost after the callee acted, or the caller died after it.
    callee: ["crash_before", "crash_after", "ambiguous"],
  };
  assert.deepEqual(ladders, documented, "every ladder the runtime's effect points name by ladderNamed, and a Workflow step attempt's two, as they document them");
});

test("queue.mjs's mayRedeliver and redeliveryStop are core's may_redeliver and redelivery_stop on every vector", () => {
  const { cases } = vectors("redelivery.json");
  assert.ok(cases.length > 0, "the vector file holds no cases");
  for (const [attempts, platformLimit, maxRedeliveries, redelivered, stop] of cases) {
    const args = JSON.stringify({ attempts, platformLimit, maxRedeliveries });
    assert.equal(mayRedeliver(attempts, platformLimit, maxRedeliveries), redelivered, args);
    assert.equal(redeliveryStop(attempts, platformLimit, maxRedeliveries), stop, args);
  }
});

test("producer.mjs's producedMessageId gives the ids core's produced_ids.json holds", () => {
  const { cases } = vectors("produced_ids.json");
  assert.ok(cases.length > 0, "the vector file holds no cases");
  for (const [invocation, n, id] of cases) assert.equal(producedMessageId(invocation, n), id, JSON.stringify({ invocation, n }));
});

test("each registered binding kind's operation takes the ladder its records document: reads read, writes write", () => {
  // The rows Python's records send (eutaxy/cloudflare/bindings/ladders.json, checked against
  // them by packages/cloudflare/tests/test_bindings.py); the runtime's records read them from
  // their entries, so this is where the runtime's suite holds them to what d1.mjs, kv.mjs and
  // r2.mjs say (D1's operations are what a statement does: d1.mjs isRead).
  const { kinds } = JSON.parse(readFileSync(path.join(REPO, "packages/cloudflare/src/eutaxy/cloudflare/bindings/ladders.json"), "utf8"));
  const documented = {
    d1: { read: "read", write: "write" },
    kv: { get: "read", getWithMetadata: "read", list: "read", put: "write", delete: "write" },
    r2: { head: "read", get: "read", list: "read", put: "write", delete: "write" },
    // Each ack() and retry() is a decision point (queue.mjs), taking the decision ladder.
    queue_consumer: { ack: "decision", retry: "decision" },
    // Each send and sendBatch is one io point (producer.mjs), taking the write ladder.
    queue_producer: { send: "write", sendBatch: "write" },
    // A stub call's answer can be lost after the object ran it; nobody waits for an alarm's or a message's.
    durable_object: { call: "write", alarm: "read", webSocketMessage: "read" },
    // An assets binding's fetch is never faulted (static files are no effect a retry changes).
    assets: {},
    // A Workflow's create is a call into the engine; a step attempt's two points take the step ladders (bindings/workflow.mjs).
    workflow: { create: "write", send_event: "write", step: "step", step_result: "stepResult" },
    // A call through a service binding (a method, a property, fetch()) has a stub call's meanings (bindings/service.mjs).
    service: { call: "write" },
  };
  assert.deepEqual(kinds, documented);
  const { ladders } = vectors("ladders.json");
  assert.deepEqual(kindPolicy("r2").ladders.get, ladders.read, "the runtime's tests send the core ladder a row names");
});

test("a Durable Object alarm is retried as Cloudflare documents it: six times, 2 s first, each delay twice the one before", () => {
  // The row Python's record sends (bindings/ladders.json policies, held to the record by
  // packages/cloudflare/tests/test_bindings.py); the runtime reads it from the kind's entry.
  const { policies } = JSON.parse(readFileSync(path.join(REPO, "packages/cloudflare/src/eutaxy/cloudflare/bindings/ladders.json"), "utf8"));
  assert.deepEqual(policies.durable_object, { alarmRetryDelaysMs: [2000, 4000, 8000, 16000, 32000, 64000] });
  const config = { kinds: kinds() };
  assert.deepEqual(alarmRetryDelays(config), policies.durable_object.alarmRetryDelaysMs);
  const { ladders } = vectors("ladders.json");
  assert.deepEqual(objectLadder(config, "alarm"), ladders.read, "no ambiguous: nobody waits for an alarm's answer");
  assert.deepEqual(objectLadder(config, "call"), ladders.write);
});

test("a queue producer takes the delays and batches Cloudflare documents: up to 12 hours, up to 100 messages", () => {
  // The row Python's record sends (bindings/ladders.json policies, held to the record by
  // packages/cloudflare/tests/test_bindings.py); producer.mjs reads it from the binding's entry.
  const { policies } = JSON.parse(readFileSync(path.join(REPO, "packages/cloudflare/src/eutaxy/cloudflare/bindings/ladders.json"), "utf8"));
  assert.deepEqual(policies.queue_producer, { delaySecondsMax: 43_200, batchMessagesMax: 100 });
  const [[, entry]] = kindBindings({ kinds: { queue_producer: producerKind({ JOBS: { queue: "jobs", deliveryDelaySeconds: 0 } }) } }, "queue_producer");
  assert.equal(entry.policy.batchMessagesMax, 100);
  assert.ok("message" in messageOf({}, { delaySeconds: 43_200 }, undefined, entry));
  assert.match(/** @type {any} */ (messageOf({}, { delaySeconds: 43_201 }, undefined, entry)).typeError, /from 0 to 43200, got 43201/);
});

test("a run's own wall-clock limit from its effect hang bound is core's", () => {
  const { cases } = vectors("run_limit.json");
  for (const [effectHangMs, limitMs] of cases) {
    assert.equal(new Run(barePlan({ effectHangMs }), {}, {}).runLimitMs, limitMs, `effectHangMs ${effectHangMs}`);
  }
});
