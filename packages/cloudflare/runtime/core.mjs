// @ts-check
/**
 * Core decisions: calls into the scenario's `specs` modules, recorded for `refines`.
 *
 * The host bundles every spec module behind a generated wrapper (host.mjs, the
 * `eutaxy-core` esbuild plugin): code outside the module imports the wrapper, whose
 * exports are `coreExport(module, name, value)` of the real module's, while the module's
 * own calls between its functions stay direct. So every call into an export from outside
 * the module, during a run and inside an invocation, is recorded as target
 * `Core:<function>`, op `decide`, kind `decision`, payload `{args, result}`, with the
 * invocation that made it (its async context in a concurrent run), the ordinal of that
 * invocation's next effect point (a decision is not a point) and the virtual now.
 *
 * `args` and `result` are the canonical (JSON) reading the log, invariants and `refines` use,
 * and it is lossy: -0 reads as 0, NaN, the infinities and undefined as null, and a bigint
 * argument turns the whole list into a string. So that the spec ladder's CHECKED rung sees
 * the call that was made, the payload also carries the exact reading in the ladder's value
 * encoding (exact.mjs) where it differs: `argsExact` and `resultExact`, each present only
 * when its value differs from the canonical one (absent, the canonical one is exact). When
 * the arguments hold a value that encoding cannot carry (a Date, a Map, a class instance, a
 * function, a cycle), `argsInexact` says which instead, and CHECKED leaves the call out.
 *
 * A call that throws is not a decision: nothing is recorded and the error reaches the
 * caller. A call that returns a promise (or any thenable) makes the run UNSUPPORTED
 * (`async_core`): a core is pure and synchronous, and what an async one resolves to is
 * not the decision the shell acted on. A function name exported by two spec modules is a
 * user error at load, since decisions are logged by name.
 */

import { active } from "./active.mjs";
import { callSite } from "./call_site.mjs";
import { exact } from "./exact.mjs";

/** The error a Worker that cannot load shows: the host reports it as the user's to fix. */
export class CoreNameClash extends Error {
  name = "EutaxyCoreNameClash";
}

/** @type {Map<string, string>} function name -> the spec module that exports it */
const owners = new Map();

/** @param {unknown} value plain data as the effect log holds it (JSON's reading) */
function plain(value) {
  if (value === undefined) return null;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? null : JSON.parse(text);
  } catch {
    return String(value);
  }
}

/** @param {Function} fn */
function isClass(fn) {
  return /^class[\s{]/.test(Function.prototype.toString.call(fn));
}

/**
 * The payload of a decision: the canonical readings, and the exact ones where they differ.
 * @param {unknown} args the canonical reading of the arguments (taken before the call)
 * @param {import("./exact.mjs").Exact} argsExact their exact reading (taken before the call)
 * @param {unknown} result the value the call returned
 * @returns {Record<string, unknown>}
 */
export function decisionPayload(args, argsExact, result) {
  const canonical = plain(result);
  /** @type {Record<string, unknown>} */
  const payload = { args, result: canonical };
  if (!argsExact.ok) payload.argsInexact = argsExact.why;
  else if (differs(argsExact.value, args)) payload.argsExact = argsExact.value;
  const resultExact = exact(result, "result");
  if (resultExact.ok && differs(resultExact.value, canonical)) payload.resultExact = resultExact.value;
  return payload;
}

/** @param {unknown} encoded @param {unknown} canonical */
function differs(encoded, canonical) {
  return JSON.stringify(encoded) !== JSON.stringify(canonical);
}

/**
 * Record one decision of the running invocation, if a run is in progress and one is running.
 * @param {string} name @param {unknown} args the canonical reading of the arguments
 * @param {unknown} result @param {import("./exact.mjs").Exact} [argsExact] the exact reading of the arguments
 * @param {string} [site] the bundle positions of the call (call_site.mjs)
 */
export function recordDecision(name, args, result, argsExact = { ok: true, value: args }, site = undefined) {
  const run = active.run;
  if (!run || run.stopped) return;
  const inv = run.current;
  if (!inv || inv.dead) return;
  run.record(`Core:${name}`, "decide", "decision", decisionPayload(args, argsExact, result), inv.id, inv.nextOrdinal, run.clock.now, site);
}

/**
 * One export of a spec module as code outside the module sees it.
 * @param {string} module the spec module's path @param {string} name @param {unknown} value
 */
export function coreExport(module, name, value) {
  if (typeof value !== "function" || isClass(value)) return value;
  const owner = owners.get(name);
  if (owner !== undefined && owner !== module) {
    throw new CoreNameClash(`the spec modules ${owner} and ${module} both export a function ${name}; decisions are recorded by name, so rename one`);
  }
  owners.set(name, module);
  const fn = /** @type {Function} */ (value);
  const wrapped = {
    /** @this {unknown} @param {unknown[]} args */
    [name](...args) {
      // Both readings before the call, which may mutate its arguments.
      const before = plain(args);
      const beforeExact = exact(args, "args");
      const result = fn.apply(this, args);
      if (result !== null && (typeof result === "object" || typeof result === "function") && typeof (/** @type {any} */ (result)).then === "function") {
        active.run?.markUnsupported("async_core", `the core function ${name} (${module}) returned a promise; core functions in specs must be synchronous`);
        return result;
      }
      // The caller's line, read only when a run will record the decision.
      recordDecision(name, before, result, beforeExact, active.run ? callSite(wrapped) : undefined);
      return result;
    },
  }[name];
  return wrapped;
}
