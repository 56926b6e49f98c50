// @ts-check
/**
 * The service binding record: the Worker behind a binding, scripted, never called.
 *
 * - Entry (its kind's, `service`, as Python's record eutaxy/cloudflare/bindings/service.py
 *   writes it): per binding `{setup, settings: {service, entrypoint, owner}}`, `setup` the `service`
 *   step `{methods: {[method]: reply | {replies: [reply, ...]}}, fetch: [route, ...]}`, a reply
 *   `{value} | {error: {name, message}}` (a
 *   binding without one is the index's trap, bindings/index.mjs: `binding_without_setup`); the
 *   kind's policy gives a call's ladder (`ladderOf(entry, "call")`). No Miniflare binding is
 *   behind it: the record stands in for one.
 * - Proxy: the Fetcher the Worker sees. Each RPC method call (`env.B.reserve(sku)`), awaited
 *   property (`await env.B.version`) and fetch() is one `io` effect at `Service:<binding>`, op
 *   the method (`fetch` for fetch()), with a Durable Object stub call's ladder and meanings:
 *   crash_before and error never reached the callee, ambiguous: the callee acted and the
 *   answer was lost, crash_after: the caller died after the call. Cloudflare retries none.
 *   A method's payload is `{args: {args}}` (`{args: {property: true}}` for a property), its
 *   result `{ok: true, value}`, or `{ok: false, error: {name, message}}` for a scripted error,
 *   which the caller gets as RPC carries an Error of that name the callee throws
 *   (`thrownAcross`, the callee taken to have the caller's enhanced_error_serialization,
 *   `scriptedSides`): without it a built-in class (RangeError, TypeError, ...) as itself, any
 *   other as an Error whose message is `<name>: <message>`; with it an Error keeping its name;
 *   with `remote: true`. The value is a fresh copy per call.
 *   A method scripted with `replies` gives the n-th of its calls that reaches the callee in a
 *   run the n-th reply, the last repeating (fetch.mjs `replyAt`, a route's rule): counted as a
 *   fetch() route's requests are, when the call reaches the callee (no fault, ambiguous,
 *   crash_after), not for crash_before or error. An awaited property is a call of its name.
 *   A fetch()'s payload is the request as an external's (fetch.mjs `recordedRequest`), its
 *   result `{status, ok, body}`; its route is matched by method and path as an external's
 *   (fetch.mjs `scriptedRoutes`, `routeFor`), and a route with `replies` gives the n-th
 *   request it answers in a run the n-th reply (counted when the call reaches the callee).
 *
 * UNSUPPORTED, each with its cause: a method the script lacks (`service_method_unscripted`),
 * a fetch() no route answers (`service_fetch_unmatched`), a redirect reply (301, 302, 303,
 * 307, 308 with a Location) to a fetch() whose redirect mode is not "manual", which the runtime
 * would follow through the binding (`service_redirect`), connect() (`service_connect`), a
 * property of a call's result read before it is awaited, which RPC would pipeline to the
 * callee (`rpc_pipelining`), and an argument that is not plain data (`not_plain_data`).
 */

import { effectPoint, never, UnsupportedSignal } from "../effects.mjs";
import { recordedRequest, replyAt, responseOf, routeFor, scriptedRoutes } from "../fetch.mjs";
import { dataProperty, describedThrown, errorFields, isError, loggedOrNull as recorded, plainData } from "../values.mjs";
import { lostCall } from "./durable_object.mjs";
import { ladderOf } from "./policy.mjs";

/** The redirect statuses fetch() follows when the reply carries a Location. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Per run, per binding, how many calls each fetch() route and each method scripted in turn
 * answered (keyed `fetch <route index>`, `method <name>`).
 * @type {WeakMap<import("../run.mjs").Run, Map<string, Map<string, number>>>}
 */
const answered = new WeakMap();

/**
 * Take the next answer of `key` at `binding` in this run: its position (from 0).
 * @param {import("../run.mjs").Run} run @param {string} binding @param {string} key
 */
function nextAnswer(run, binding, key) {
  let bindings = answered.get(run);
  if (!bindings) answered.set(run, (bindings = new Map()));
  let counts = bindings.get(binding);
  if (!counts) bindings.set(binding, (counts = new Map()));
  const position = counts.get(key) ?? 0;
  counts.set(key, position + 1);
  return position;
}

/**
 * The error classes RPC delivers as themselves, by the name their text starts with (the JS error
 * types workerd tunnels, its WebAssembly ones by their short names), each made with a message.
 * @type {[string, (message: string) => Error][]}
 */
const TUNNELED = [
  ["Error", (message) => new Error(message)], ["RangeError", (message) => new RangeError(message)],
  ["TypeError", (message) => new TypeError(message)], ["SyntaxError", (message) => new SyntaxError(message)],
  ["ReferenceError", (message) => new ReferenceError(message)], ["EvalError", (message) => new EvalError(message)],
  ["URIError", (message) => new URIError(message)], ["AggregateError", (message) => withoutErrors(new AggregateError([], message))],
  ["CompileError", (message) => new WebAssembly.CompileError(message)], ["LinkError", (message) => new WebAssembly.LinkError(message)],
  ["RuntimeError", (message) => new WebAssembly.RuntimeError(message)],
];

/** An AggregateError as workerd tunnels one: without its `errors`. @param {AggregateError} error */
function withoutErrors(error) {
  delete (/** @type {{errors?: unknown}} */ (error)).errors;
  return error;
}

/** What workerd answers for a text it cannot tunnel (its reference is random there, fixed here). */
const INTERNAL_ERROR = "internal error; reference = 0123456789abcdefghijklmn";

/** After `:` and the spaces that follow it, as workerd reads a tunneled message; empty without the `:`. @param {string} rest */
function afterColon(rest) {
  return rest.startsWith(":") ? rest.slice(1).replace(/^ +/, "") : "";
}

/**
 * The one rule for what a value the Worker behind a binding throws reaches its caller as, RPC
 * carrying it, measured on Miniflare with two Workers over a real service binding under each
 * error serialization (the cases and settings of test/rpc_thrown.json, which rpc_thrown.test.mjs
 * holds to a real binding and to this rule). `sides` says which Worker has workerd's
 * `enhanced_error_serialization` on (`errorSerialization`): only the caller's decides whether a
 * value crosses the enhanced way, the callee's then whether an error keeps its name.
 *
 * Without it on the caller's side (whatever the callee's):
 * - A `DOMException` arrives as a DOMException of its name and message.
 * - An object's text (`describedThrown`) that starts with a tunneled class's name (`Error`,
 *   `RangeError`, `TypeError`, ... `AggregateError`, WebAssembly's `CompileError`, `LinkError`,
 *   `RuntimeError`) arrives as that class, its message what follows a `:` and spaces (else
 *   empty): a RangeError as itself; an error of a class of the callee's own (`SoldOut`) as an
 *   Error whose message is `SoldOut: <message>`; a name that only starts with a class's
 *   (`Errorish`) as that class with an empty message; a text that starts with `DOMException`
 *   but no `(name)` as workerd's internal error (`internal error; reference = <id>`, its id
 *   random there, fixed here).
 * - Any other value, a string, a number, null, a plain object (`#<Object>`), an array (`[object
 *   Array]`), arrives as an Error whose message is its text (leading spaces dropped).
 *
 * With it on the caller's side (`enhancedAcross`): an object that is not an error and that
 * structured clone copies (a plain object, an array, a Map, a class's instance as a plain
 * object) arrives as that copy; an error arrives, with it on the callee's side too, with its
 * name, message and own properties (`namedError`), else as V8's structured clone writes an
 * error (`clonedError`: a class of V8's by name, else Error; its own message; its cause);
 * anything else (a primitive, a function, a DOMException or an error whose text starts with
 * `DOMException`, an object clone refuses) as without it.
 *
 * Either way with `remote: true`. Used for a scripted `{name, message}` (here, thrown as an
 * Error of that name), a callee's throw (callee.mjs) and an rpc drive's answer (rpc.mjs).
 * @param {unknown} thrown the value thrown
 * @param {{caller: boolean, callee: boolean}} [sides] which side has enhanced_error_serialization (default: the loaded Worker's, both)
 */
export function thrownAcross(thrown, sides) {
  const { caller, callee } = sides ?? { caller: errorSerialization(), callee: errorSerialization() };
  return Object.assign((caller && enhancedAcross(thrown, callee)) || tunneled(thrown), { remote: true });
}

/**
 * Whether the loaded Worker has `enhanced_error_serialization` on: workerd's own answer for its
 * compatibility date and flags (`Cloudflare.compatibilityFlags`), never a copy of its date rule.
 */
export function errorSerialization() {
  return /** @type {any} */ (globalThis).Cloudflare?.compatibilityFlags?.enhanced_error_serialization === true;
}

/** The classes V8's structured clone writes an error as, by its name; any other name is an Error. */
const CLONED = /** @type {Record<string, ErrorConstructor>} */ ({ Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError });

/**
 * What crosses the enhanced way, or null where that carries it as without it (a primitive, a
 * function, a DOMException or a text that starts with its name, an object structured clone refuses). @param {unknown} thrown @param {boolean} callee
 * @returns {object | null}
 */
function enhancedAcross(thrown, callee) {
  if (thrown === null || typeof thrown !== "object" || thrown instanceof DOMException) return null;
  if (describedThrown(thrown).startsWith("DOMException")) return null;
  if (isError(thrown)) return callee ? namedError(/** @type {Error} */ (thrown)) : clonedError(thrown);
  try {
    return copied(thrown);
  } catch {
    return null;
  }
}

/**
 * A structured clone of a value as RPC copies it: an error in it keeps its stack unlisted (the
 * isolate's own structuredClone, under enhanced_error_serialization, makes it an own enumerable
 * property, which RPC does not). Throws for a value clone refuses. @param {unknown} value
 */
function copied(value) {
  const copy = structuredClone(value);
  const seen = new Set();
  /** @param {unknown} at */
  const walk = (at) => {
    if (at === null || typeof at !== "object" || seen.has(at)) return;
    seen.add(at);
    const stack = isError(at) ? Object.getOwnPropertyDescriptor(at, "stack") : undefined;
    if (stack?.enumerable) Object.defineProperty(at, "stack", { ...stack, enumerable: false });
    for (const key of Object.keys(at)) walk(/** @type {any} */ (at)[key]);
  };
  walk(copy);
  return copy;
}

/**
 * An error with `enhanced_error_serialization` on both sides: its name (read as the caller
 * would) picks the class, V8's or AggregateError, else an Error whose own `name` is it; its
 * message if a string, else empty; its own properties but name, message and stack, copied by
 * structured clone (none if one will not copy; symbol keys dropped). @param {Error} thrown
 */
function namedError(thrown) {
  const { name, message } = thrown;
  const text = typeof message === "string" ? message : "";
  const made = name === "AggregateError" ? withoutErrors(new AggregateError([], text))
    : typeof name === "string" && Object.hasOwn(CLONED, name) ? new CLONED[name](text) : Object.assign(new Error(text), { name });
  const own = Object.getOwnPropertyNames(thrown).filter((key) => !["name", "message", "stack"].includes(key));
  try {
    return Object.assign(made, copied(Object.fromEntries(own.map((key) => [key, /** @type {any} */ (thrown)[key]]))));
  } catch {
    return made;
  }
}

/**
 * An error as V8's structured clone writes it (the caller's side alone with the setting): the
 * class its name (a data property) names of V8's, else Error; its own message data property
 * as text, none without one; its own cause copied. @param {object} thrown
 */
function clonedError(thrown) {
  const name = dataProperty(thrown, "name");
  const Class = typeof name === "string" && Object.hasOwn(CLONED, name) ? CLONED[name] : Error;
  const message = Object.getOwnPropertyDescriptor(thrown, "message");
  const made = message && "value" in message ? new Class(String(message.value)) : new Class();
  const cause = Object.getOwnPropertyDescriptor(thrown, "cause");
  if (cause && "value" in cause) {
    try {
      Object.defineProperty(made, "cause", { value: copied(cause.value), writable: true, configurable: true });
    } catch {
      // V8 copies a cause clone accepts; one it refuses is left behind here.
    }
  }
  return made;
}

/** @param {unknown} thrown @returns {Error} */
function tunneled(thrown) {
  if (thrown instanceof DOMException) return new DOMException(afterColon(`: ${thrown.message}`), thrown.name);
  const text = describedThrown(thrown);
  if (thrown === null || (typeof thrown !== "object" && typeof thrown !== "function")) return new Error(afterColon(`: ${text}`));
  if (text.startsWith("DOMException")) {
    const named = /^DOMException\(([^)]*)\)(.*)$/s.exec(text);
    return named ? new DOMException(afterColon(named[2]), named[1]) : new Error(INTERNAL_ERROR);
  }
  const known = TUNNELED.find(([name]) => text.startsWith(name));
  if (known) return known[1](afterColon(text.slice(known[0].length)));
  return new Error(afterColon(`: ${text}`));
}

/**
 * Each side's enhanced_error_serialization for a scripted binding: its caller's, the loaded
 * Worker's (workerd's answer) or, for a callee's own binding (`inventory/PARTNER`, its entry's
 * `owner` the callee's name, as Python's `owner_of` reads it), that callee's (its config's,
 * callee.mjs); the scripted Worker, which has no config, is taken to have its caller's (the
 * verdict says so, eutaxy.cloudflare.rpc). @param {any} run @param {any} entry the binding's entry
 */
function scriptedSides(run, entry) {
  /** @type {string | null} */
  const owner = entry.settings.owner ?? null;
  /** @type {{name: string, errors?: {callee: boolean}}[]} */
  const callees = Object.values(run.config.callees ?? {});
  const on = owner === null ? errorSerialization() : callees.find((callee) => callee.name === owner)?.errors?.callee === true;
  return { caller: on, callee: on };
}

/**
 * The error a scripted `{name, message}` stands for: thrown by the callee as an Error of that name.
 * @param {{name: string, message: string}} scripted
 */
function scriptedError(scripted) {
  return Object.assign(new Error(scripted.message), { name: scripted.name });
}

/**
 * The name and message a thrown value reaches an RPC caller with (`thrownAcross`), as the log writes an error.
 * @param {unknown} thrown
 */
export function carriedFields(thrown) {
  return errorFields(thrownAcross(thrown));
}

/** @param {string} fault */
function injectedError(fault) {
  return lostCall(fault, "callee");
}

/**
 * The binding one invocation sees.
 * @param {import("../run.mjs").Run} run @param {import("../effects.mjs").Invocation} inv
 * @param {string} binding @param {any} entry its entry: `setup` the checked `service` step
 */
function makeService(run, inv, binding, entry) {
  const target = `Service:${binding}`;
  /** @typedef {{value?: unknown, error?: {name: string, message: string}}} Reply */
  /** @type {{methods: Record<string, Reply | {replies: Reply[]}>, fetch: any[]}} */
  const script = entry.setup;
  const routes = scriptedRoutes(script.fetch ?? [], `service(${JSON.stringify(binding)}): fetch`);
  /** Mark the run UNSUPPORTED; the signal that stops a synchronous caller. @param {string} cause @param {string} detail */
  const refuse = (cause, detail) => {
    run.markUnsupported(cause, `service binding ${binding}: ${detail}`);
    return new UnsupportedSignal(`service binding ${binding}: ${detail}`);
  };
  /**
   * @template T
   * @param {string} op @param {object} args @param {() => T} perform @param {(value: T) => unknown} summarize
   * @returns {Promise<T>}
   */
  const point = (op, args, perform, summarize) => /** @type {Promise<T>} */ (effectPoint(run, inv, {
    kind: "io", target, op, args, ladder: ladderOf(entry, "call"), injectedError, perform: async () => perform(), summarize,
  }));

  /** @param {string} method @param {unknown[] | null} args null: an awaited property */
  const call = async (method, args) => {
    const reply = Object.hasOwn(script.methods, method) ? script.methods[method] : null;
    if (reply === null) {
      const scripted = Object.keys(script.methods);
      refuse("service_method_unscripted", `${method}() was called, but its service step scripts no reply for it (${scripted.length > 0 ? `it scripts ${scripted.map((name) => `${name}()`).join(", ")}` : "it scripts no method"}); add it to methods`);
      return never();
    }
    if (args !== null && !plainData(args)) {
      refuse("not_plain_data", `${method}() was called with an argument that is not plain data (a function, a stub, a class instance)`);
      return never();
    }
    // Run only when the call reaches the callee: a method's replies in turn move then.
    const perform = () => ("replies" in reply ? replyAt(reply, nextAnswer(run, binding, `method ${method}`)) : reply);
    const answer = await point(method, args === null ? { property: true } : { args: recorded(args) }, perform,
      (given) => (given.error ? { ok: false, error: given.error } : { ok: true, value: recorded(given.value) }));
    if (answer.error) throw thrownAcross(scriptedError(answer.error), scriptedSides(run, entry));
    return answer.value === undefined ? undefined : structuredClone(answer.value);
  };

  /**
   * A call's result as RPC hands it over: a promise whose other properties RPC would pipeline
   * to the callee, which is not modelled.
   * @param {Promise<unknown>} promise @param {string} method
   */
  const unpipelined = (promise, method) => new Proxy(promise, {
    get(settling, property) {
      if (typeof property === "symbol" || property === "then" || property === "catch" || property === "finally") {
        const value = Reflect.get(settling, property, settling);
        return typeof value === "function" ? value.bind(settling) : value;
      }
      throw refuse("rpc_pipelining", `${method}()'s result was used before it was awaited (.${property}): RPC promise pipelining is not modelled; await the call first`);
    },
  });

  /** @param {string} method */
  const member = (method) => {
    /** @param {unknown[]} args */
    const stub = (...args) => unpipelined(call(method, args), method);
    /** @param {(value: unknown) => unknown} [resolve] @param {(error: unknown) => unknown} [reject] */
    stub.then = (resolve, reject) => call(method, null).then(resolve, reject);
    return stub;
  };

  /** @param {RequestInfo} input @param {RequestInit} [init] */
  const fetch = async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    const route = routes.length > 0 ? routeFor(routes, method, url) : null;
    if (route === null || route === "default") {
      refuse("service_fetch_unmatched", `fetch ${method} ${url.pathname}: its service step scripts no route for it (${routes.length} route(s) in fetch)`);
      return never();
    }
    const reply = await point("fetch", await recordedRequest(request, init), () => {
      const given = replyAt(route, nextAnswer(run, binding, `fetch ${route.index}`));
      const location = Object.keys(given.headers).some((name) => name.toLowerCase() === "location");
      if (REDIRECTS.has(given.status) && location && request.redirect !== "manual") {
        throw refuse("service_redirect", `fetch ${method} ${url.pathname} is answered ${given.status} with a Location, which the runtime would follow through the binding; script the final reply, or fetch with redirect: "manual"`);
      }
      return given;
    }, (given) => ({ status: given.status, ok: given.status >= 200 && given.status < 300, body: given.body }));
    return responseOf(reply);
  };

  const connect = () => {
    throw refuse("service_connect", "connect() opens a socket to the callee, which is not modelled");
  };

  return new Proxy(Object.create(null), {
    get(_target, property) {
      if (typeof property === "symbol" || property === "then" || property === "toJSON") return undefined;
      if (property === "fetch") return fetch;
      if (property === "connect") return connect;
      return member(property);
    },
  });
}

/** @type {import("./record.mjs").BindingRecord} */
export const service = {
  kind: "service",
  standsIn: true,
  proxy: (run, inv, name, _real, entry) => makeService(run, inv, name, entry),
};
