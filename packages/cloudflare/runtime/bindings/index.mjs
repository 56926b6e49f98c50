// @ts-check
/**
 * The binding records, in setup order: the order the run resets them, builds an
 * invocation's env from them, installs their globals and snapshots them. Adding a binding
 * is adding its record file here (bindings/record.mjs says what a record holds).
 *
 * `owners`, `resetBindings` and `snapshotBindings` are the walks over the records that both
 * a run (run.mjs) and anything else that resets or reads the bindings as a run does (the
 * differential runner's raw side) use, so neither names a kind.
 *
 * A registered binding kind (Python's `eutaxy.cloudflare.bindings`) has its entry in the
 * runtime config's `kinds` (host/load.mjs), under the record's `kind`: a record without a
 * `names` of its own owns that entry's bindings (policy.mjs `kindBindings`), each entry
 * `{resource, setup, setupHint, settings, policy, title}` (`setup` the binding's setup step as
 * Python's record checked it, null without one; `settings` the binding's own, from its config
 * entry, as a Durable Object's class; `policy` the kind's; `title` how messages name it). A kind
 * whose bindings are no names in `env` (the queue consumer's, named by queue) has `names` owning
 * none and reads its entry with `kindBindings` itself. The rule for a binding no setup step names is applied here, once for
 * every kind: `withoutSetup: "unsupported"` makes it a trap (`binding_without_setup`, naming
 * the step to add), and its record neither resets nor snapshots it; `"empty"` leaves it to
 * the record, which starts it empty. A kind whose record lives outside this folder is
 * registered by the bundle (host/bundler.mjs) with `registerRecord`, before any run.
 */

import { access } from "./access.mjs";
import { assets } from "./assets.mjs";
import { callee } from "./callee.mjs";
import { d1 } from "./d1.mjs";
import { durableObject } from "./durable_object.mjs";
import { externals } from "./externals.mjs";
import { kv } from "./kv.mjs";
import { queueConsumer } from "./queue_consumer.mjs";
import { r2 } from "./r2.mjs";
import { service } from "./service.mjs";
import { queueProducer } from "./queue_producer.mjs";
import { traps } from "./traps.mjs";
import { workflow } from "./workflow.mjs";
import { kindBindings } from "./policy.mjs";
import { trapUnset } from "../unsupported.mjs";

/** @typedef {import("./record.mjs").BindingRecord} BindingRecord */

/** The records built in, in setup order; registered records go before the last three (which stand in for what no record owns). */
// A service binding a callee runs is the callee record's (Python's service kind leaves it out of its entry).
const BUILT_IN = Object.freeze([d1, kv, r2, durableObject, queueConsumer, queueProducer, assets, workflow, callee, service]);
const STAND_INS = Object.freeze([externals, traps, access]);

/** The records the bundle registered (`registerRecord`), in its order. @type {BindingRecord[]} */
const REGISTERED = [];

/** @type {BindingRecord[]} every record, in setup order; the same array for the whole isolate's life */
export const RECORDS = [...BUILT_IN, ...STAND_INS];

/**
 * Register a binding kind's record defined outside this folder (the bundle does, before any
 * run): it joins the records after the built-in ones, before the stand-ins.
 * @param {BindingRecord} record
 */
export function registerRecord(record) {
  if (RECORDS.some((known) => known.kind === record.kind)) throw new Error(`binding record ${record.kind} is registered twice`);
  REGISTERED.push(record);
  RECORDS.splice(0, RECORDS.length, ...BUILT_IN, ...REGISTERED, ...STAND_INS);
}

/**
 * The value the Worker sees for one owned binding in one invocation: the record's proxy, or
 * the trap for a binding its kind may not touch without a setup step.
 * @param {{record: BindingRecord, entry: any}} owner @param {import("../run.mjs").Run} run
 * @param {import("../effects.mjs").Invocation} inv @param {string} name @param {any} real
 */
export function proxyOf(owner, run, inv, name, real) {
  if (owner.entry?.unset) return trapUnset(owner.entry.title, name, owner.entry.setupHint);
  return owner.record.proxy ? owner.record.proxy(run, inv, name, real, owner.entry) : real;
}

/**
 * Each env name a record owns, with its record and config entry: records in setup order,
 * the first to claim a name owning it.
 * @param {any} config the runtime config (host/load.mjs)
 * @returns {Map<string, {record: BindingRecord, entry: any}>}
 */
export function owners(config) {
  /** @type {Map<string, {record: BindingRecord, entry: any}>} */
  const owned = new Map();
  for (const record of RECORDS) {
    for (const [name, entry] of record.names?.(config) ?? kindBindings(config, record.kind)) if (!owned.has(name)) owned.set(name, { record, entry });
  }
  return owned;
}

/**
 * One record's bindings, `[name, real, entry]`, in the order its `names` gave them.
 * @param {Map<string, {record: BindingRecord, entry: any}>} owned @param {BindingRecord} record
 * @param {Record<string, any>} realEnv
 * @returns {[string, any, any][]}
 */
export function ownedBy(owned, record, realEnv) {
  /** @type {[string, any, any][]} */
  const list = [];
  // A binding its kind may not touch without a setup step is neither reset nor snapshotted.
  for (const [name, owner] of owned) if (owner.record === record && !owner.entry?.unset) list.push([name, realEnv[name], owner.entry]);
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
  return gathered(config, realEnv, (record, bindings) => record.snapshot?.(bindings, run));
}

/**
 * The differential runner's raw side, after its last attempt: every record's `settleRaw`, in
 * setup order, each waiting at most `waitMs` of real time. Answers what did not finish.
 * @param {any} config @param {Record<string, any>} realEnv @param {number} waitMs
 * @returns {Promise<string[]>}
 */
export async function settleRawBindings(config, realEnv, waitMs) {
  return gathered(config, realEnv, (record, bindings) => record.settleRaw?.(bindings, waitMs));
}

/**
 * What each record answers `ask` about the bindings it owns, records in setup order, one after
 * another, in one list (a record without the method `ask` calls answers nothing).
 * @template T
 * @param {any} config @param {Record<string, any>} realEnv
 * @param {(record: BindingRecord, bindings: [string, any, any][]) => Promise<T[]> | undefined} ask
 * @returns {Promise<T[]>}
 */
async function gathered(config, realEnv, ask) {
  const owned = owners(config);
  /** @type {T[]} */
  const answers = [];
  for (const record of RECORDS) answers.push(...((await ask(record, ownedBy(owned, record, realEnv))) ?? []));
  return answers;
}
