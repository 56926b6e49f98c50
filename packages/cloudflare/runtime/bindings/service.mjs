// @ts-check
/**
 * The service binding record: the Worker behind a binding, scripted, never called.
 *
 * - Entry (its kind's, `service`, as Python's record eutaxy/cloudflare/bindings/service.py
 *   writes it): per binding `{setup, settings: {service, entrypoint}}`, `setup` the `service`
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
 *   (`thrownAcross`): a built-in class (RangeError, TypeError, ...) as itself, any other as an
 *   Error whose message is `<name>: <message>`, with `remote: true`. The value is a fresh copy per call.
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
import { describedThrown, errorFields, loggedOrNull as recorded, plainData } from "../values.mjs";
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
  ["URIError", (message) => new URIError(message)], ["AggregateError", (message) => new AggregateError([], message)],
  ["CompileError", (message) => new WebAssembly.CompileError(message)], ["LinkError", (message) => new WebAssembly.LinkError(message)],
  ["RuntimeError", (message) => new WebAssembly.RuntimeError(message)],
];

/** What workerd answers for a text it cannot tunnel (its reference is random there, fixed here). */
const INTERNAL_ERROR = "internal error; reference = 0123456789abcdefghijklmn";

/** After `:` and the spaces that follow it, as workerd reads a tunneled message; empty without the `:`. @param {string} rest */
function afterColon(rest) {
  return rest.startsWith(":") ? rest.slice(1).replace(/^ +/, "") : "";
}

/**
 * The one rule for what a value the Worker behind a binding throws reaches its caller as, RPC
 * carrying it, measured on Miniflare with two Workers over a real service binding (the cases
 * of test/rpc_thrown.json, which rpc_thrown.test.mjs holds to a real binding and to this rule),
 * with workerd's error serialization before `enhanced_error_serialization` (a Worker whose
 * compatibility settings turn that on is named in the verdict, eutaxy.cloudflare.rpc):
 *
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
 * Either way with `remote: true` and none of the thrown value's own properties. Used for a
 * scripted `{name, message}` (here, thrown as an Error of that name), a callee's throw
 * (callee.mjs) and an rpc drive's answer (rpc.mjs).
 * @param {unknown} thrown the value thrown
 */
export function thrownAcross(thrown) {
  return Object.assign(tunneled(thrown), { remote: true });
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
    if (answer.error) throw thrownAcross(scriptedError(answer.error));
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
