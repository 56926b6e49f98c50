// @ts-check
/**
 * The binding records, in setup order: the order the run resets them, builds an
 * invocation's env from them, installs their globals and snapshots them. Adding a binding
 * is adding its record file here (bindings/record.mjs says what a record holds).
 *
 * `owners`, `resetBindings` and `snapshotBindings` are the walks over the records that both
 * a run (run.mjs) and anything else that resets or reads the bindings as a run does (the
 * differential runner's raw side) use, so neither names a kind.
 */

import { access } from "./access.mjs";
import { d1 } from "./d1.mjs";
import { durableObject } from "./durable_object.mjs";
import { externals } from "./externals.mjs";
import { kv } from "./kv.mjs";
import { queueConsumer } from "./queue_consumer.mjs";
import { r2 } from "./r2.mjs";
import { queueProducer } from "./queue_producer.mjs";
import { traps } from "./traps.mjs";

/** @typedef {import("./record.mjs").BindingRecord} BindingRecord */

/** @type {readonly BindingRecord[]} */
export const RECORDS = Object.freeze([d1, kv, r2, durableObject, queueConsumer, queueProducer, externals, traps, access]);

/**
 * Each env name a record owns, with its record and config entry: records in setup order,
 * the first to claim a name owning it.
 * @param {any} config the runtime config (host/load.mjs)
 * @returns {Map<string, {record: BindingRecord, entry: unknown}>}
 */
export function owners(config) {
  /** @type {Map<string, {record: BindingRecord, entry: unknown}>} */
  const owned = new Map();
  for (const record of RECORDS) {
    for (const [name, entry] of record.names?.(config) ?? []) if (!owned.has(name)) owned.set(name, { record, entry });
  }
  return owned;
}

/**
 * One record's bindings, `[name, real, entry]`, in the order its `names` gave them.
 * @param {Map<string, {record: BindingRecord, entry: unknown}>} owned @param {BindingRecord} record
 * @param {Record<string, any>} realEnv
 * @returns {[string, any, any][]}
 */
export function ownedBy(owned, record, realEnv) {
  /** @type {[string, any, any][]} */
  const list = [];
  for (const [name, owner] of owned) if (owner.record === record) list.push([name, realEnv[name], owner.entry]);
  return list;
}

/**
 * Reset every binding a record owns to what its setup step asks for, records in setup order.
 * @param {any} config @param {Record<string, any>} realEnv
 */
export async function resetBindings(config, realEnv) {
  const owned = owners(config);
  for (const record of RECORDS) {
    if (!record.reset) continue;
    for (const [name, real, entry] of ownedBy(owned, record, realEnv)) await record.reset(name, real, entry);
  }
}

/**
 * The state every binding ends with, records in setup order: `{target, table, rows}` each,
 * which a run records as `snapshot` effects. `run` is the run that ended (none for the
 * differential runner's raw side): state a record keeps per run (the messages produced onto
 * queues the Worker does not consume) is read from it.
 * @param {any} config @param {Record<string, any>} realEnv @param {import("../run.mjs").Run} [run]
 * @returns {Promise<{target: string, table: string, rows: unknown[]}[]>}
 */
export async function snapshotBindings(config, realEnv, run) {
  const owned = owners(config);
  /** @type {{target: string, table: string, rows: unknown[]}[]} */
  const snapshots = [];
  for (const record of RECORDS) {
    if (record.snapshot) snapshots.push(...(await record.snapshot(ownedBy(owned, record, realEnv), run)));
  }
  return snapshots;
}

/**
 * The differential runner's raw side, after its last attempt: every record's `settleRaw`, in
 * setup order, each waiting at most `waitMs` of real time. Answers what did not finish.
 * @param {any} config @param {Record<string, any>} realEnv @param {number} waitMs
 * @returns {Promise<string[]>}
 */
export async function settleRawBindings(config, realEnv, waitMs) {
  const owned = owners(config);
  /** @type {string[]} */
  const pending = [];
  for (const record of RECORDS) {
    if (record.settleRaw) pending.push(...(await record.settleRaw(ownedBy(owned, record, realEnv), waitMs)));
  }
  return pending;
}
