// @ts-check
/**
 * The callee record: a service binding whose Worker runs for real in the same isolate
 * (Python's eutaxy.cloudflare.callee reads its config; the bundle imports its entry and hands
 * its module to the run by binding, `run.calleeModules`).
 *
 * The runtime config's `callees` (host/load.mjs) gives each callee by the env name its caller
 * reaches it by (`INVENTORY`, or a callee's own qualified as `inventory/PARTNER`): its Worker
 * name, the export a call constructs (null: the default), the props its binding carries and its
 * env view (each of its own names -> the isolate's env name it reads: `DB` -> `inventory/DB`, or
 * the caller's binding for an alias). The record owns those names and stands in for them (no
 * binding of Miniflare's is behind them).
 *
 * Each call through the binding, an RPC method or fetch(), is one `io` point of the caller's
 * invocation, target `Service:<binding>`, op the method (`fetch`), payload `{args}`, result
 * `{value}` (a fetch: `{status, ok}`), ladder `callee` (core's: crash_before, the call never
 * reached the callee; ambiguous, the callee acted and the answer was lost; crash_after, the
 * caller died after it). The point hosts the callee's invocation, `<caller invocation>/<binding>.<method>`
 * (`#<n>` for the n-th call of that method from one invocation): the entrypoint is
 * constructed anew with a fresh ExecutionContext (its props the binding's) and the callee's
 * env, whose bindings are proxied for that invocation, so its effects are its own and take
 * faults by their position in it. Its waitUntil work runs after its answer, before the answer
 * crosses back (its background point). What the method returns crosses as a structured clone
 * (a value that is not plain data, a function or a stream in it, makes the run UNSUPPORTED,
 * `not_plain_data`), or, an RpcTarget, as a stub whose method calls are calls of the same
 * binding (`rpcStub`: payload `{args, stub}`, hosting an invocation that runs the target's
 * method; the env the target kept reads as that invocation's, `invocationView`); what it
 * throws reaches the caller as RPC carries it (service.mjs `thrownAcross`, the one rule, with
 * the caller's and the callee's enhanced_error_serialization, `errorSides`): without it on the
 * caller's side a built-in class as itself, any other name as an Error whose message is
 * `<name>: <message>`, a value that is not an Error as an Error of its text (V8's, `#<Object>`
 * for a plain object), with `remote: true` and none of its own properties; a crash inside the
 * callee (a fault on one of its effects) ends its invocation and the call throws. A fetch()
 * calls the callee's default fetch handler and its Response crosses as it is; a handler that
 * throws rejects the caller's fetch() with the error.
 *
 * The scheduler hosts the callee's invocation while the call is in flight (`scheduler.host`):
 * its code runs as its own (its timers and console lines are its own), and in a concurrent run
 * in an async context of its own, its effects turns like any other invocation's while the
 * caller waits at the call.
 */

import { runBackground, settleHandler } from "../background.mjs";
import { Invocation, effectPoint, ladderNamed, never } from "../effects.mjs";
import { UserFacingError } from "../errors.mjs";
import { realConsole } from "../patch.mjs";
import { progress } from "../progress.mjs";
import { drain } from "../settle.mjs";
import { refuse } from "../unsupported.mjs";
import { logged, read } from "../values.mjs";
import { proxyOf } from "./index.mjs";
import { errorSerialization, thrownAcross } from "./service.mjs";

/**
 * @typedef {{name: string, entrypoint: string | null, props: object, env: Record<string, string>, classes?: Record<string, string>,
 *   errors?: {caller: boolean | null, callee: boolean}}} CalleeEntry
 */

/** How many calls of each `<binding>.<method>` each invocation made, for the hosted invocations' ids. @type {WeakMap<Invocation, Map<string, number>>} */
const callCounts = new WeakMap();

/** @type {import("./record.mjs").BindingRecord} */
export const callee = {
  kind: "callee",
  names: (config) => Object.entries(config.callees ?? {}),
  standsIn: true,
  proxy: (run, inv, name, _real, entry) => calleeBinding(run, inv, name, entry),
};

/**
 * The id of the callee's invocation a call hosts: `<caller>/<binding>.<method>`, `#<n>` from the second call on.
 * @param {Invocation} inv @param {string} binding @param {string} method
 */
function hostedId(inv, binding, method) {
  const counts = callCounts.get(inv) ?? new Map();
  callCounts.set(inv, counts);
  const key = `${binding}.${method}`;
  const n = (counts.get(key) ?? 0) + 1;
  counts.set(key, n);
  return `${inv.id}/${key}${n > 1 ? `#${n}` : ""}`;
}

/** @param {string} fault */
function injectedError(fault) {
  const error = new Error(`Network connection lost. (eutaxy: ${fault} outcome injected; the callee ran the call)`);
  Object.assign(error, { retryable: true });
  return error;
}

/**
 * What the binding is in one invocation's env: every property but `fetch` and `connect` a
 * method to call over RPC.
 * @param {import("../run.mjs").Run} run @param {import("../effects.mjs").Invocation} inv
 * @param {string} binding @param {CalleeEntry} entry
 */
function calleeBinding(run, inv, binding, entry) {
  return new Proxy(Object.create(null), {
    get(_target, property) {
      // Not a thenable, not serialized: the binding itself is no value to await or log.
      if (typeof property === "symbol" || property === "then" || property === "toJSON") return undefined;
      if (property === "connect") {
        return () => {
          throw refuse("binding_not_modelled", `connect() through service binding ${binding} (callee ${entry.name}) is not modelled`);
        };
      }
      if (property === "fetch") return (/** @type {RequestInfo} */ input, /** @type {RequestInit | undefined} */ init) => callFetch(run, inv, binding, entry, new Request(input, init));
      return (/** @type {unknown[]} */ ...args) => callMethod(run, inv, binding, entry, property, args);
    },
  });
}

/**
 * One RPC call through the binding: the point hosting the callee's invocation, the method
 * called on a new entrypoint.
 * @param {import("../run.mjs").Run} run @param {Invocation} inv @param {string} binding
 * @param {CalleeEntry} entry @param {string} method @param {unknown[]} args
 */
function callMethod(run, inv, binding, entry, method, args) {
  return rpcCall(run, inv, binding, entry, method, args, null, (Entrypoint, env, ctx) => new Entrypoint(ctx, env));
}

/**
 * One RPC call, of a method of the object `receiver` gives (a new entrypoint, or the RpcTarget
 * a stub stands for): one `io` point of `inv`'s at `Service:<binding>` hosting the callee's
 * invocation. What crosses back is plain data, or a stub for an RpcTarget returned.
 * @param {import("../run.mjs").Run} run @param {Invocation} inv @param {string} binding
 * @param {CalleeEntry} entry @param {string} method @param {unknown[]} args
 * @param {string | null} stub the invocation that returned the RpcTarget called, null for the binding's own method
 * @param {(Entrypoint: any, env: Record<string, unknown>, ctx: any) => any} receiver
 */
function rpcCall(run, inv, binding, entry, method, args, stub, receiver) {
  const reading = read(args, "the arguments");
  if (!reading.ok) {
    run.markUnsupported("not_plain_data", `${inv.id}: ${binding}.${method}() was called with an argument that is not plain data (${reading.why}): an RPC stub, a function or a stream, whose calls would bypass the proxies`);
    return never();
  }
  return effectPoint(run, inv, {
    kind: "io", hosts: true, target: `Service:${binding}`, op: method, args: stub === null ? { args: reading.value } : { args: reading.value, stub },
    ladder: ladderNamed(run, "callee"), injectedError,
    summarize: (value) => (isStub(value) ? { stub: true } : { value: logged(value) }),
    perform: () => hosted(run, inv, binding, entry, method, (Entrypoint, env, ctx) => {
      const copy = structuredClone(args);
      const object = receiver(Entrypoint, env, ctx);
      if (typeof object?.[method] !== "function") {
        // What workerd answers a call of a method the receiver lacks.
        throw new TypeError(`The RPC receiver does not implement the method "${method}".`);
      }
      return object[method](...copy);
    }, (value, child) => {
      // An RpcTarget crosses as a stub: its methods' calls are effects of the same binding.
      if (isRpcTarget(value)) return { ok: true, value: rpcStub(run, inv, binding, entry, value, child.id) };
      const answer = read(value, "the value returned");
      if (!answer.ok) {
        run.markUnsupported("not_plain_data", `${binding}.${method}() of callee ${entry.name} returned something that is not plain data (${answer.why}): a function, a stream or a stub inside a value, whose calls would bypass the proxies`);
        return { ok: false };
      }
      return { ok: true, value: structuredClone(value) };
    }),
  });
}

/**
 * Whether a value is an instance of a class extending workerd's RpcTarget (found by the name of
 * a class in its prototype chain, so this module needs no import of workerd's own).
 * @param {unknown} value
 */
function isRpcTarget(value) {
  if (typeof value !== "object" || value === null) return false;
  for (let proto = Object.getPrototypeOf(value), depth = 0; proto && depth < 32; proto = Object.getPrototypeOf(proto), depth++) {
    if (proto.constructor?.name === "RpcTarget" && proto !== Object.prototype) return true;
  }
  return false;
}

/** The stubs this record made (what a call answered for an RpcTarget). @type {WeakSet<object>} */
const stubs = new WeakSet();

/** @param {unknown} value */
function isStub(value) {
  return typeof value === "object" && value !== null && stubs.has(value);
}

/**
 * The stub the caller `inv` gets for an RpcTarget the callee returned (in `returnedBy`): each
 * method call is an RPC call of the same binding, hosting an invocation of the callee's that
 * runs the target's method; disposing of it does nothing.
 * @param {import("../run.mjs").Run} run @param {Invocation} inv @param {string} binding
 * @param {CalleeEntry} entry @param {any} target @param {string} returnedBy
 */
function rpcStub(run, inv, binding, entry, target, returnedBy) {
  const stub = new Proxy(Object.create(null), {
    get(_target, property) {
      if (property === /** @type {any} */ (Symbol).dispose) return () => {};
      if (typeof property === "symbol" || property === "then" || property === "toJSON") return undefined;
      return (/** @type {unknown[]} */ ...args) => rpcCall(run, inv, binding, entry, property, args, returnedBy, () => target);
    },
  });
  stubs.add(stub);
  return stub;
}

/**
 * One fetch() through the binding: the callee's default fetch handler, its Response crossing as it is.
 * @param {import("../run.mjs").Run} run @param {Invocation} inv @param {string} binding
 * @param {CalleeEntry} entry @param {Request} request
 */
function callFetch(run, inv, binding, entry, request) {
  const url = new URL(request.url);
  return effectPoint(run, inv, {
    kind: "io", hosts: true, target: `Service:${binding}`, op: "fetch", args: { method: request.method, path: url.pathname },
    ladder: ladderNamed(run, "callee"), injectedError,
    summarize: (response) => ({ status: response.status, ok: response.ok }),
    perform: () => hosted(run, inv, binding, entry, "fetch", (Entrypoint, env, ctx, module) => {
      if (entry.entrypoint === null && typeof module.default?.fetch === "function") return module.default.fetch(request, env, ctx);
      const object = new Entrypoint(ctx, env);
      if (typeof object.fetch !== "function") throw new TypeError(`the callee ${entry.name}'s entrypoint has no fetch() handler`);
      return object.fetch(request);
    }, (value) => {
      if (!(value instanceof Response)) {
        return { ok: false, error: new TypeError("Incorrect type for Promise: the Promise did not resolve to 'Response'.") };
      }
      return { ok: true, value };
    }),
  });
}

/**
 * The callee's export a call constructs: its default export or the named one. A missing export
 * is the scenario's to fix (the run fails with it). A default export that is a handler object
 * (no class) is what fetch() calls; an RPC method needs a class.
 * @param {any} module @param {string} binding @param {CalleeEntry} entry
 * @returns {any}
 */
function entrypointOf(module, binding, entry) {
  const exported = entry.entrypoint === null ? module?.default : module?.[entry.entrypoint];
  if (exported === undefined) {
    throw new UserFacingError(entry.entrypoint === null
      ? `callee ${entry.name} (behind ${binding}) has no default export for its calls; export a class extending WorkerEntrypoint, or name the entrypoint (callee(..., entrypoint="MyEntrypoint"))`
      : `callee ${entry.name} (behind ${binding}) has no export named ${entry.entrypoint}`);
  }
  return exported;
}

/**
 * Whether the callee's caller and the callee have `enhanced_error_serialization` on (service.mjs
 * `thrownAcross`): each from its config as Python's load message says (eutaxy.cloudflare.callee),
 * the loaded Worker's as workerd answers for it, since a callee runs in its isolate with its date.
 * @param {CalleeEntry} entry
 */
function errorSides(entry) {
  const errors = entry.errors ?? { caller: null, callee: false };
  return { caller: errors.caller ?? errorSerialization(), callee: errors.callee };
}

/**
 * Host the callee's invocation for one call and answer what crosses back: the value, or a throw
 * (what the callee threw, as RPC carries it; an error for a crash inside it).
 * @param {import("../run.mjs").Run} run @param {Invocation} given the calling invocation (or a view of it) @param {string} binding @param {CalleeEntry} entry
 * @param {string} method
 * @param {(Entrypoint: any, env: Record<string, unknown>, ctx: any, module: any) => unknown} call the callee's code
 * @param {(value: unknown, child: Invocation) => {ok: true, value: unknown} | {ok: false, error?: Error}} cross what crosses back of a value returned
 */
async function hosted(run, given, binding, entry, method, call, cross) {
  // The invocation itself: a callee's env stands for whichever of its invocations runs (invocationView).
  const caller = given.now;
  const module = run.calleeModules[binding];
  let Entrypoint;
  try {
    Entrypoint = entrypointOf(module, binding, entry);
  } catch (error) {
    run.fail(/** @type {Error} */ (error));
    return never();
  }
  const child = new Invocation(hostedId(caller, binding, method));
  calleeOf.set(child, entry.name);
  progress(child.id, "start", null);
  const hosting = run.scheduler.host(caller, child);
  const { outcome, background } = await settleHandler(run, child, (env, ctx) => call(Entrypoint, env, ctx, module), {
    env: calleeEnv(run, child, entry), props: entry.props, enter: (called) => hosting.enter(called),
  });
  if (outcome.kind === "unsupported") {
    run.endInvocation(child);
    hosting.leave();
    return never();
  }
  run.recordOutcome(child, "callee", outcome);
  /** @type {{ok: true, value: unknown} | {ok: false, error?: Error} | null} */
  const crossed = outcome.kind === "returned" ? cross(outcome.value, child) : null;
  if (outcome.kind === "threw") realConsole.error(`eutaxy: ${child.id}: callee ${entry.name}'s ${method}() threw:`, outcome.error);
  await (child.crashed ? drain(run, child) : runBackground(run, child, `Service:${binding}`, background));
  run.endInvocation(child);
  hosting.leave();
  if (run.stopped) return never();
  if (outcome.kind === "crashed" || child.crashed) {
    throw new Error(`eutaxy: callee ${entry.name} crashed in ${child.id}; the call through ${binding} failed, as a call to a Worker that fails does`);
  }
  if (outcome.kind === "threw") throw thrownAcross(outcome.error, errorSides(entry));
  if (crossed === null) return never();
  if (crossed.ok) return crossed.value;
  if ("error" in crossed && crossed.error) throw crossed.error;
  return never();
}

/**
 * The callee's env for one of its invocations: each of its own names as the record owning the
 * isolate's name presents it to that invocation (its D1 database proxied, an alias the caller's),
 * a var as it is.
 * @param {import("../run.mjs").Run} run @param {Invocation} inv @param {CalleeEntry} entry
 */
function calleeEnv(run, inv, entry) {
  const view = invocationView(run, inv, entry);
  /** @type {Record<string, unknown>} */
  const env = {};
  for (const [own, name] of Object.entries(entry.env)) {
    const owner = run.owners.get(name);
    const real = run.realEnv[name];
    env[own] = owner && (real !== undefined || owner.record.standsIn) ? proxyOf(owner, run, view, name, real) : real;
  }
  return env;
}

/**
 * A callee Worker's class the isolate runs under `alias` (`inventory.OrderFlow`, as its kind's
 * binding names it): the callee's module, the class's name there and the callee's env as `inv`
 * sees it; null for a class of the loaded Worker's own. (Its Durable Object classes the bundle
 * exports wrapped, host/bundler.mjs; a Workflow's the engine's model constructs, workflow.mjs.)
 * @param {import("../run.mjs").Run} run @param {string} alias @param {Invocation} inv
 * @returns {{module: any, className: string, env: Record<string, unknown>} | null}
 */
export function calleeClass(run, alias, inv) {
  for (const [binding, entry] of Object.entries(run.config.callees ?? {})) {
    const className = entry.classes?.[alias];
    if (className !== undefined) return { module: run.calleeModules[binding], className, env: calleeEnv(run, inv, entry) };
  }
  return null;
}

/** The callee Worker each hosted invocation runs (its name). @type {WeakMap<Invocation, string>} */
const calleeOf = new WeakMap();

/**
 * The invocation a callee's env stands for: the one of this callee hosted now when its code is
 * running (a later call's, through a stub of an RpcTarget that kept the env), else the one it
 * was made for. A proxy, as an effect point takes the invocation once (`now`) when it opens.
 * @param {import("../run.mjs").Run} run @param {Invocation} inv @param {CalleeEntry} entry
 * @returns {Invocation}
 */
function invocationView(run, inv, entry) {
  const current = () => {
    const running = run.current;
    return running && calleeOf.get(running) === entry.name ? running : inv;
  };
  return /** @type {Invocation} */ (new Proxy(Object.create(null), {
    get(_target, property) {
      const now = current();
      if (property === "now") return now;
      const value = Reflect.get(now, property);
      return typeof value === "function" ? value.bind(now) : value;
    },
    set: (_target, property, value) => Reflect.set(current(), property, value),
  }));
}

