// @ts-check
/** Load messages and run plans for the concurrent fixture (turns and core tests). */

import path from "node:path";

import { FIXTURES, fixtureLoad, queuePlan } from "./helpers.mjs";

export const FIXTURE = path.join(FIXTURES, "concurrent");

/** @param {object} [extra] */
export function concurrentLoad(extra = {}) {
  return fixtureLoad(FIXTURE, {
    d1Databases: { A: "a-db", B: "b-db" },
    queueConsumers: { jobs: { maxRetries: 0, retryDelaySeconds: 0, maxBatchSize: 1 } },
    specs: [path.join(FIXTURE, "domain.ts")],
    ...extra,
  });
}

/**
 * @param {{events?: object[], policy?: object, prefix?: number[], concurrency?: number, maxFaults?: number, turns?: number[]}} [options]
 */
export function concurrentPlan(options = {}) {
  return queuePlan({
    seed: "turns",
    name: "concurrent",
    queue: "jobs",
    events: options.events ?? [
      { id: "msg-1", body: { key: "k", amount: 600 } },
      { id: "msg-2", body: { key: "k", amount: 400 } },
    ],
    bounds: { maxFaultsPerRun: 0, maxRedeliveries: 0, maxConcurrentInvocations: options.concurrency ?? 2, budgetMs: 5000, effectHangMs: 5000 },
    policy: options.policy,
    prefix: options.prefix,
    turns: options.turns,
    maxFaults: options.maxFaults ?? 0,
  });
}

