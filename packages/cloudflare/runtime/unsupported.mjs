// @ts-check
/**
 * What a run cannot control, and the traps that make touching it UNSUPPORTED.
 *
 * The allowlist leaves out AI, Hyperdrive, the Cache API and raw sockets
 * (`binding_not_allowed`; the seeds left KV out too, which issue 15 brought in as
 * bindings/kv.mjs); bindings this runtime does not model yet (Workflows of another Worker,
 * Vectorize, ...) are `binding_not_modelled`, as is a method a modelled binding's proxy does
 * not model (`modelledOnly`); a modelled binding no setup step resets (an R2 bucket, a Durable
 * Object namespace: `trapUnset`, bindings/index.mjs) is `binding_without_setup`;
 * an outbound `fetch` no declared
 * external answers is `outbound_request` (fetch.mjs; `trappedFetch` is its stand-in where no
 * externals are read). A trap marks
 * the run, then stops the caller: a synchronous touch throws an UnsupportedSignal, an
 * asynchronous call never settles. The drive ends the run after the current invocation, and
 * the result names what was touched.
 */

import { UnsupportedSignal, never } from "./effects.mjs";
import { active } from "./active.mjs";

/** Binding kinds (as the wrangler reader names them) the seeds refuse outright. */
const NOT_ALLOWED = new Set(["ai", "hyperdrive", "cache", "sockets"]);

const KIND_NAMES = /** @type {Record<string, string>} */ ({
  ai: "AI", hyperdrive: "Hyperdrive", r2: "R2", durable_object: "Durable Object",
  workflow: "Workflow", vectorize: "Vectorize",
  analytics_engine: "Analytics Engine", browser: "Browser Rendering", images: "Images",
});

/** @param {string} kind */
export function causeFor(kind) {
  return NOT_ALLOWED.has(kind) ? "binding_not_allowed" : "binding_not_modelled";
}

/**
 * Mark the active run UNSUPPORTED with `cause`, and the signal that stops the caller.
 * @param {string} cause @param {string} detail
 */
export function refuse(cause, detail) {
  const run = active.run;
  if (run) run.markUnsupported(cause, detail);
  return new UnsupportedSignal(detail);
}

/**
 * A stand-in for a binding the run cannot control: any property read marks the run.
 * Symbol reads (inspection, `await` probing `then`) are answered without marking.
 * @param {string} kind @param {string} name
 */
export function trapBinding(kind, name) {
  const label = KIND_NAMES[kind] ?? kind;
  return trap((detail) => refuse(causeFor(kind), detail), `${label} binding ${name} was touched`, "");
}

/**
 * A stand-in for a modelled binding no setup step resets: its state would carry over
 * between runs, so touching it marks the run `binding_without_setup`.
 * @param {string} label the binding kind as users name it ("R2") @param {string} name
 * @param {string} step the setup step to add, as the scenario writes it
 */
export function trapUnset(label, name, step) {
  const tail = ` but no setup step resets it; add ${step} to the scenario's setup`;
  return trap((detail) => refuse("binding_without_setup", detail), `${label} binding ${name} was touched`, tail);
}

/**
 * A modelled binding's proxy that answers only what it models: a read of any other property
 * (a method the proxy lacks, such as a producer's `metrics()`) marks the run
 * `binding_not_modelled`, as the R2 record does, instead of handing the Worker an `undefined`
 * production would not give it. Symbol reads, `then` (await probing) and `toJSON`
 * (JSON.stringify, console output) answer undefined without marking.
 * @param {object} proxy the record's proxy object, its own properties the modelled ones
 * @param {string} label the binding kind as users name it ("KV") @param {string} name
 * @returns {any}
 */
export function modelledOnly(proxy, label, name) {
  /** @param {string} what */
  const refused = (what) => refuse("binding_not_modelled", `${label} binding ${name}: ${what} is not modelled`);
  return new Proxy(proxy, {
    get(target, property) {
      if (Object.hasOwn(target, property)) return Reflect.get(target, property);
      if (typeof property === "symbol" || property === "then" || property === "toJSON") return undefined;
      throw refused(`.${property}`);
    },
    has(target, property) {
      return Object.hasOwn(target, property);
    },
    set(_target, property) {
      throw refused(`assigning .${String(property)}`);
    },
  });
}

/** @param {(detail: string) => Error} refused @param {string} detail @param {string} tail */
function trap(refused, detail, tail) {
  return new Proxy(Object.create(null), {
    get(_target, property) {
      if (typeof property === "symbol" || property === "then") return undefined;
      throw refused(`${detail} (.${property})${tail}`);
    },
    has() {
      throw refused(`${detail}${tail}`);
    },
    set() {
      throw refused(`${detail}${tail}`);
    },
  });
}

/** A `fetch` that answers nothing: every outbound request is unsupported (fetch.mjs answers the declared externals). */
export function trappedFetch(/** @type {unknown} */ input, /** @type {unknown} */ init) {
  let url = "";
  try {
    url = input instanceof Request ? input.url : String(input);
  } catch {
    url = "<unprintable>";
  }
  const method = (/** @type {any} */ (init)?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
  refuse("outbound_request", `outbound fetch ${method} ${url}: no external is declared for it`);
  return never();
}

/** The run's `caches`: the Cache API is outside the allowlist. */
export function trappedCaches() {
  return trapBinding("cache", "caches (the Cache API)");
}

/** `connect()` from `cloudflare:sockets`, as the bundle resolves it for user code. */
export function trappedConnect(/** @type {unknown} */ address) {
  let where = "";
  try {
    where = typeof address === "string" ? address : JSON.stringify(address);
  } catch {
    where = "<address>";
  }
  throw refuse("binding_not_allowed", `a raw socket was opened with connect(${where})`);
}
