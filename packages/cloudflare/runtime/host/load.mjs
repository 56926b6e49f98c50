// @ts-check
/**
 * The load message, read: from `{worker, setup}` as Python sends it to what the bundler,
 * Miniflare and the in-isolate runtime each need. Setup files are read here, once per load.
 */

import { readFileSync } from "node:fs";
import path from "node:path";

import { splitSchema } from "../d1.mjs";
import { UserError } from "./toolchain.mjs";

/** The compatibility date used when the Worker's config names none. */
const DEFAULT_COMPATIBILITY_DATE = "2025-09-01";

/** Binding kinds of the wrangler reader that the runtime replaces by traps. */
const TRAP_SECTIONS = /** @type {Record<string, string>} */ ({
  kvNamespaces: "kv", r2Buckets: "r2", hyperdrives: "hyperdrive", durableObjects: "durable_object",
  services: "service", queueProducers: "queue_producer", workflows: "workflow",
});

/** @param {any} worker @param {any[]} setup the in-isolate runtime's config (run.mjs RuntimeConfig) */
function runtimeConfig(worker, setup) {
  /** @type {Record<string, {schema: string[], sources: string[]}>} */
  const d1 = {};
  for (const binding of Object.keys(worker.d1Databases ?? {})) d1[binding] = { schema: [], sources: [] };
  for (const step of setup ?? []) {
    if (step?.kind !== "d1_schema") throw new UserError(`setup step ${JSON.stringify(step?.kind)} is not supported by the Cloudflare runtime yet`);
    if (!d1[step.binding]) throw new UserError(`setup d1_schema names binding ${step.binding}, which the Worker's config does not declare as a D1 database`);
    if (!path.isAbsolute(step.path)) throw new UserError(`setup d1_schema path must be absolute, got ${step.path}`);
    let text;
    try {
      text = readFileSync(step.path, "utf8");
    } catch (error) {
      throw new UserError(`setup d1_schema: cannot read ${step.path}: ${/** @type {Error} */ (error).message}`);
    }
    // Each statement's file:line, so a schema that does not apply names where (run.mjs).
    let cursor = 0;
    for (const statement of splitSchema(text)) {
      const at = text.indexOf(statement, cursor);
      cursor = at + statement.length;
      d1[step.binding].schema.push(statement);
      d1[step.binding].sources.push(`${step.path}:${text.slice(0, at).split("\n").length}`);
    }
  }
  /** @type {Record<string, string>} */
  const traps = {};
  for (const [section, kind] of Object.entries(TRAP_SECTIONS)) {
    for (const name of Object.keys(worker[section] ?? {})) traps[name] = kind;
  }
  for (const binding of worker.bindings ?? []) traps[binding.name] = binding.kind;
  /** @type {Record<string, {maxRetries?: number}>} */
  const queueConsumers = {};
  for (const [queue, consumer] of Object.entries(worker.queueConsumers ?? {})) {
    queueConsumers[queue] = Number.isInteger(consumer?.maxRetries) ? { maxRetries: consumer.maxRetries } : {};
  }
  return { d1, traps, queueConsumers };
}

/**
 * The Worker's flags, plus `nodejs_als` when it has neither that nor `nodejs_compat`: the
 * runtime's turn scheduler names the running invocation with AsyncLocalStorage
 * (`node:async_hooks`), which workerd offers only under one of them.
 * @param {string[]} flags
 */
function withAsyncContext(flags) {
  if (flags.some((flag) => flag === "nodejs_compat" || flag === "nodejs_compat_v2" || flag === "nodejs_als")) return flags;
  return [...flags, "nodejs_als"];
}

/**
 * @param {any} message the load request
 * @returns {{entry: string, specs: string[], runtime: object, compatibilityDate: string, compatibilityFlags: string[],
 *   d1Databases: Record<string, string>, vars: Record<string, unknown>}}
 */
export function readLoad(message) {
  const worker = message.worker ?? {};
  if (typeof worker.entry !== "string" || !path.isAbsolute(worker.entry)) throw new UserError(`worker.entry must be an absolute path, got ${JSON.stringify(worker.entry)}`);
  return {
    entry: worker.entry,
    specs: Array.isArray(worker.specs) ? worker.specs : [],
    runtime: runtimeConfig(worker, message.setup),
    compatibilityDate: worker.compatibilityDate ?? DEFAULT_COMPATIBILITY_DATE,
    compatibilityFlags: withAsyncContext(worker.compatibilityFlags ?? []),
    d1Databases: worker.d1Databases ?? {},
    vars: worker.vars ?? {},
  };
}
