// @ts-check
/**
 * The load message, read: from `{worker, setup}` as Python sends it to what the bundler,
 * Miniflare and the in-isolate runtime each need. It names no binding kind: each registered
 * kind's entry (`kinds`) goes to its runtime record as Python's record wrote it.
 *
 * The message is checked first against load.schema.json, the one schema of it, which
 * Python's producer (eutaxy.cloudflare.worker.LoadMessage.to_data) is tested against too:
 * a message that does not fit is Eutaxy's own bug, so it fails as an internal error naming
 * the field, what was expected and what came. Nothing here has a default of its own.
 *
 * The compatibility date is the one rule applied here: a Worker asking for a date newer than
 * the pinned workerd supports runs with the newest it supports, as wrangler does (it warns and
 * runs with Miniflare's supported date, which is workerd's). The load answer says both dates,
 * and Python states them in the verdict's assumptions.
 */

import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { UserError, toolchain } from "./toolchain.mjs";

/**
 * The newest compatibility date the pinned workerd supports: the date its package exports,
 * fixed by the pin (not by the clock, unlike Miniflare's supportedCompatibilityDate, which is
 * also capped at today), so a verdict does not depend on the day it was reached.
 * @type {string}
 */
export const NEWEST_COMPATIBILITY_DATE = toolchain.workerd.compatibilityDate;

/**
 * The date the Worker runs with: its own, or the newest supported when it asks for a later one.
 * Both are YYYY-MM-DD (Python's reader checked the Worker's), so they compare as strings.
 * @param {string} asked @param {string} newest @returns {string}
 */
export function supportedDate(asked, newest) {
  return asked > newest ? newest : asked;
}

/** The load message's schema (a subset of JSON Schema: type, const, required, properties, additionalProperties, items). */
export const LOAD_SCHEMA = JSON.parse(readFileSync(fileURLToPath(new URL("./load.schema.json", import.meta.url)), "utf8"));

/** @param {unknown} value */
function typeOf(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (Number.isInteger(value)) return "integer";
  return typeof value;
}

/**
 * The problems of `value` against `schema`, each naming where, what was expected and what came.
 * @param {any} schema @param {unknown} value @param {string} at @returns {string[]}
 */
export function schemaProblems(schema, value, at = "load") {
  if ("const" in schema && value !== schema.const) return [`${at}: expected ${JSON.stringify(schema.const)}, found ${JSON.stringify(value)}`];
  // A type is one name or a list of names (`["string", "null"]`), as JSON Schema writes them.
  const types = schema.type === undefined ? [] : [schema.type].flat();
  if (types.length && !types.includes(typeOf(value))) return [`${at}: expected ${types.join(" or ")}, found ${typeOf(value)}`];
  /** @type {string[]} */
  const problems = [];
  if (schema.type === "array" && schema.items) {
    /** @type {unknown[]} */ (value).forEach((item, index) => problems.push(...schemaProblems(schema.items, item, `${at}[${index}]`)));
  }
  if (schema.type === "object") {
    const object = /** @type {Record<string, unknown>} */ (value);
    for (const name of schema.required ?? []) if (!(name in object)) problems.push(`${at}.${name}: expected a value, found none`);
    for (const [name, field] of Object.entries(object)) {
      const known = schema.properties?.[name];
      if (known) problems.push(...schemaProblems(known, field, `${at}.${name}`));
      else if (schema.additionalProperties === false) problems.push(`${at}.${name}: expected no such field, found one`);
      else if (schema.additionalProperties) problems.push(...schemaProblems(schema.additionalProperties, field, `${at}.${name}`));
    }
  }
  return problems;
}

/** @param {any} worker @param {any[]} setup the in-isolate runtime's config (run.mjs RuntimeConfig) */
function runtimeConfig(worker, setup) {
  // Every setup step a runtime record reads is in its kind's entry (Python's record checked it).
  if (setup.length > 0) throw new UserError(`setup step ${JSON.stringify(setup[0]?.kind)} is not supported by the Cloudflare runtime yet`);
  /** @type {Record<string, string>} */
  const traps = {};
  for (const binding of worker.bindings) traps[binding.name] = binding.kind;
  // Each registered kind's entry goes to its runtime record as Python's record wrote it
  // (bindings/index.mjs reads it): its bindings with their setup steps, its policy, its settings.
  // The platform's ladders (eutaxy.core.faults), which every effect point but a registered
  // kind's takes by name (effects.mjs ladderNamed).
  // Each callee Worker by the binding its caller reaches it by (bindings/callee.mjs): its name,
  // export, props and env view; its module is the bundle's (calleeEntries).
  /** @type {Record<string, {name: string, entrypoint: string | null, props: object, env: Record<string, string>, classes: Record<string, string>, errors: {caller: boolean | null, callee: boolean}}>} */
  const callees = {};
  for (const { binding, name, entrypoint, props, env, classes, errors } of worker.callees) callees[binding] = { name, entrypoint, props, env, classes, errors };
  return { ladders: worker.ladders, kinds: worker.kinds, traps, accessHeaderPrefix: worker.accessHeaderPrefix, callees };
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
 * The Miniflare options the registered kinds give the Worker, each kind's as its Python record
 * wrote them (`miniflare`: option -> value; D1's `d1Databases: {binding: database}`).
 * @param {Record<string, {miniflare: Record<string, unknown>}>} kinds
 * @returns {Record<string, any>}
 */
function miniflareOptions(kinds) {
  /** @type {Record<string, any>} */
  const options = {};
  for (const { miniflare } of Object.values(kinds)) Object.assign(options, miniflare);
  return options;
}

/**
 * @param {any} message the load request
 * @returns {{entry: string, root: string, specs: string[], runtime: object, compatibilityDate: string, compatibilityFlags: string[],
 *   dates: {asked: string, used: string, newest: string}, kindBindings: Record<string, any>, kindModules: string[],
 *   objectClasses: string[], vars: Record<string, unknown>,
 *   define: Record<string, string>, alias: Record<string, string>, rules: {type: string, globs: string[]}[], tsconfig: string | null, cpuLimitMs: number,
 *   noBundle: {baseDir: string, rules: {type: string, globs: string[]}[]} | null,
 *   calleeEntries: {binding: string, entry: string, env: Record<string, string>, classes: Record<string, string>}[],
 *   rawCallees: {binding: string, caller: string | null, name: string, entrypoint: string | null, entry: string, miniflare: Record<string, any>, vars: Record<string, unknown>}[]}}
 */
export function readLoad(message) {
  const problems = schemaProblems(LOAD_SCHEMA, message);
  if (problems.length > 0) throw new Error(`the load message does not fit host/load.schema.json: ${problems.join("; ")}`);
  const worker = message.worker;
  if (typeof worker.entry !== "string" || !path.isAbsolute(worker.entry)) throw new UserError(`worker.entry must be an absolute path, got ${JSON.stringify(worker.entry)}`);
  if (!path.isAbsolute(worker.root)) throw new UserError(`worker.root must be an absolute path, got ${JSON.stringify(worker.root)}`);
  return {
    entry: worker.entry,
    // Stack positions are shown relative to the project's folder (the config's).
    root: worker.root,
    specs: worker.specs,
    runtime: runtimeConfig(worker, message.setup),
    compatibilityDate: supportedDate(worker.compatibilityDate, NEWEST_COMPATIBILITY_DATE),
    dates: {
      asked: worker.compatibilityDate,
      used: supportedDate(worker.compatibilityDate, NEWEST_COMPATIBILITY_DATE),
      newest: NEWEST_COMPATIBILITY_DATE,
    },
    compatibilityFlags: withAsyncContext(worker.compatibilityFlags),
    kindBindings: miniflareOptions(worker.kinds),
    // The runtime records of kinds defined outside runtime/bindings/, which the bundle imports.
    kindModules: Object.values(worker.kinds).flatMap((/** @type {any} */ kind) => (kind.module === null ? [] : [kind.module])),
    // The Worker's classes the bundle wraps for the kinds' runtime records (objects.mjs).
    objectClasses: [...new Set(Object.values(worker.kinds).flatMap((/** @type {any} */ kind) => kind.classes))].sort(),
    define: worker.define,
    alias: worker.alias,
    rules: worker.rules,
    tsconfig: worker.tsconfig,
    noBundle: worker.noBundle,
    vars: worker.vars,
    cpuLimitMs: worker.cpuLimitMs,
    // The callee Workers' entry modules, which the bundle imports beside the Worker's, with the
    // classes of theirs it exports under their aliases and the env those see.
    calleeEntries: worker.callees.map((/** @type {any} */ one) => ({ binding: one.binding, entry: one.entry, env: one.env, classes: one.classes })),
    // Each callee as a Worker of its own beside the loaded one (the differential runner's raw side).
    rawCallees: worker.callees.map((/** @type {any} */ one) => ({
      binding: one.binding, caller: one.owner, name: one.name, entrypoint: one.entrypoint, entry: one.entry, miniflare: one.miniflare, vars: one.vars,
    })),
  };
}
