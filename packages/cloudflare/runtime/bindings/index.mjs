// @ts-check
/**
 * The binding records, in setup order: the order the run resets them, builds an
 * invocation's env from them, installs their globals and snapshots them. Adding a binding
 * is adding its record file here (bindings/record.mjs says what a record holds).
 */

import { d1 } from "./d1.mjs";
import { externals } from "./externals.mjs";
import { queueConsumer } from "./queue_consumer.mjs";
import { traps } from "./traps.mjs";

/** @type {readonly import("./record.mjs").BindingRecord[]} */
export const RECORDS = Object.freeze([d1, queueConsumer, externals, traps]);
