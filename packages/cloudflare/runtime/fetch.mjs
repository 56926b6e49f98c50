// @ts-check
/**
 * Outbound fetch, answered from the scenario's declared externals; it never reaches the network.
 *
 * `plan.scenario.externals` is `[{name, host, responses, dedupeBy}]` (docs/contract.md;
 * eutaxy.cloudflare.externals checks and normalises it). A request's host matches an
 * external whose `host` is that name, or a `*.suffix` pattern the host ends in
 * (`*.pay.example` takes `api.pay.example`, not `pay.example`). Its route is the first of
 * the external's `responses` that matches (`routeFor`): the method, then the URL path
 * (`path` exact, or a prefix when it ends in `*`; or `pattern`, a regular expression the
 * whole path must match), then every `query` parameter the route names, with that value.
 * An external with no routes answers 200 with an empty body. A host no external declares,
 * or a request no route matches, makes the run UNSUPPORTED (`outbound_request`, naming the
 * method, host and path), and the caller's promise never settles.
 *
 * A route answers with its one reply or its `replies` in turn: the n-th request the route
 * answers in a run gets the n-th reply, the last repeating (`replyAt`). The count is per run
 * and per route, and moves when a request reaches the external (the point performs: no
 * fault, `crash_after`, `ambiguous`), not for `crash_before` or `error`, which never reach
 * it, nor for a dedupe hit, which gets the earlier reply and does nothing.
 *
 * Each request to a declared external is one effect point with the write ladder: target
 * `Fetch:<name>`, op the method, payload `{args: {url, method, headers, body, dedupeKey},
 * result: {status, effective, dedupeKey}}`. `headers` are the request's, lower-cased;
 * `body` is the request's text, parsed when its content type says JSON or it is a JSON
 * object or array, null when there is none. With `dedupeBy` (a header name) the external
 * remembers each key it committed in this run: a request repeating one gets the earlier
 * reply and is recorded `effective: false` (it did nothing). crash_before and error never
 * reach the external (no key is remembered); crash_after and ambiguous did (the key is).
 * The injected error is the TypeError a lost connection gives.
 */

import { effectPoint, ladderNamed, never } from "./effects.mjs";
import { UserFacingError } from "./errors.mjs";

/**
 * @typedef {{status?: number, headers?: Record<string, string>, body?: unknown}} ScriptedReply
 * @typedef {{method?: string, path?: string, pattern?: string, query?: Record<string, string>,
 *   replies?: ScriptedReply[]} & ScriptedReply} Scripted
 * @typedef {{name: string, host: string, responses?: Scripted[], dedupeBy?: string | null}} External
 * @typedef {{status: number, headers: Record<string, string>, body: unknown}} Reply
 * @typedef {{index: number, method: string | null, matchPath: (path: string) => boolean,
 *   query: [string, string][], replies: Reply[]}} Route
 */

/** Statuses whose response may carry no body. */
const NULL_BODY = new Set([101, 204, 205, 304]);

/** Whether `host` is what `pattern` declares (exact, or `*.suffix`). @param {string} pattern @param {string} host */
export function hostMatches(pattern, host) {
  const p = String(pattern).toLowerCase();
  const h = host.toLowerCase();
  if (p.startsWith("*.")) return h.endsWith(p.slice(1)) && h.length > p.length - 1;
  return p === h;
}

/** @param {External[]} externals @param {string} host */
export function externalFor(externals, host) {
  return externals.find((external) => hostMatches(external.host, host)) ?? null;
}

/** The reply an external with no routes gives every request. */
/** @type {Reply} */
const DEFAULT_REPLY = Object.freeze({ status: 200, headers: Object.freeze({}), body: null });

/** @param {ScriptedReply} reply @returns {Reply} */
function replyOf(reply) {
  return { status: Number.isInteger(reply.status) ? /** @type {number} */ (reply.status) : 200, headers: reply.headers ?? {}, body: reply.body ?? null };
}

/**
 * An external's routes, ready to match. A pattern JavaScript cannot compile is the
 * scenario's mistake, raised before the run drives anything.
 * @param {External} external @returns {Route[]}
 */
export function compileRoutes(external) {
  return scriptedRoutes(external.responses ?? [], `external(${JSON.stringify(external.name)})`);
}

/**
 * Scripted routes, ready to match (an external's, a scripted service binding's fetch()
 * replies, bindings/service.mjs); `label` names their owner in the error for a pattern
 * JavaScript cannot compile.
 * @param {Scripted[]} responses @param {string} label @returns {Route[]}
 */
export function scriptedRoutes(responses, label) {
  return responses.map((scripted, index) => {
    /** @type {(path: string) => boolean} */
    let matchPath = () => true;
    if (typeof scripted.path === "string") {
      const path = scripted.path;
      matchPath = path.endsWith("*") ? (given) => given.startsWith(path.slice(0, -1)) : (given) => given === path;
    } else if (typeof scripted.pattern === "string") {
      let regex;
      try {
        regex = new RegExp(`^(?:${scripted.pattern})$`);
      } catch (error) {
        throw new UserFacingError(`${label}: responses[${index}]: pattern must be a JavaScript regular expression, got ${JSON.stringify(scripted.pattern)} (${error instanceof Error ? error.message : String(error)})`);
      }
      matchPath = (given) => regex.test(given);
    }
    const replies = Array.isArray(scripted.replies) && scripted.replies.length > 0 ? scripted.replies.map(replyOf) : [replyOf(scripted)];
    return { index, method: scripted.method == null ? null : scripted.method.toUpperCase(), matchPath, query: Object.entries(scripted.query ?? {}), replies };
  });
}

/**
 * The first route that matches the request, `"default"` when the external scripts no route
 * (every request gets 200 and an empty body), or null when it scripts routes and none fits.
 * @param {Route[]} routes @param {string} method @param {URL} url @returns {Route | "default" | null}
 */
export function routeFor(routes, method, url) {
  if (routes.length === 0) return "default";
  const found = routes.find((route) => (route.method === null || route.method === method) && route.matchPath(url.pathname) && route.query.every(([name, value]) => url.searchParams.get(name) === value));
  return found ?? null;
}

/**
 * The reply for a scripted sequence's `position`-th answer (from 0): the last reply repeats. The
 * one rule for replies in turn: a route's, and a scripted service method's (bindings/service.mjs).
 * @template T @param {{replies: T[]}} scripted @param {number} position @returns {T}
 */
export function replyAt(scripted, position) {
  return scripted.replies[Math.min(position, scripted.replies.length - 1)];
}

/** The body as recorded. @param {string | null} text @param {string} contentType */
export function recordedBody(text, contentType) {
  if (text === null || text === "") return text === null ? null : "";
  if (/json/i.test(contentType) || /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * A request as its effect records it: `{url, method, headers, body}`, the headers lower-cased,
 * the body as `recordedBody` reads it. A string body is read as given, so a request made at
 * once stays a point made at once.
 * @param {Request} request @param {any} [init] the init it was made with
 */
export async function recordedRequest(request, init) {
  /** @type {string | null} */
  let text;
  if (typeof init?.body === "string") text = init.body;
  else if (request.body === null) text = null;
  else text = await request.text();
  /** @type {Record<string, string>} */
  const headers = {};
  for (const [name, value] of request.headers) headers[name] = value;
  return { url: request.url, method: request.method.toUpperCase(), headers, body: recordedBody(text, request.headers.get("content-type") ?? "") };
}

/** A Response for a reply: a string body as text, any other value as JSON. @param {Reply} reply */
export function responseOf(reply) {
  const headers = new Headers(reply.headers);
  /** @type {string | null} */
  let body = null;
  if (!NULL_BODY.has(reply.status) && reply.body !== null && reply.body !== undefined) {
    if (typeof reply.body === "string") {
      body = reply.body;
    } else {
      body = JSON.stringify(reply.body);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
    }
  }
  return new Response(body, { status: reply.status, headers });
}

/**
 * The run's `fetch`.
 * @param {import("./run.mjs").Run} run
 */
export function makeFetch(run) {
  /** @type {External[]} */
  const externals = Array.isArray(run.scenario.externals) ? run.scenario.externals : [];
  /** Per external, the replies it committed by dedupe key, in this run. @type {Map<string, Map<string, Reply>>} */
  const remembered = new Map();
  /** Each external's routes, compiled once per run. @type {Map<string, Route[]>} */
  const routes = new Map(externals.map((external) => [external.name, compileRoutes(external)]));
  /** Per external and route, how many requests it answered in this run. @type {Map<string, number[]>} */
  const answered = new Map(externals.map((external) => [external.name, (external.responses ?? []).map(() => 0)]));

  /** @param {unknown} input @param {any} [init] */
  return async function fetch(input, init) {
    const inv = run.current;
    if (!inv || inv.dead || run.stopped) {
      if (!inv && !run.stopped) run.markUnsupported("outbound_request", "outbound fetch outside an invocation");
      return never();
    }
    const request = new Request(/** @type {any} */ (input), init);
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    const external = externalFor(externals, url.hostname);
    if (!external) {
      run.markUnsupported("outbound_request", `outbound fetch ${method} ${request.url}: no external declares host ${url.hostname}`);
      return never();
    }
    const route = routeFor(/** @type {Route[]} */ (routes.get(external.name)), method, url);
    if (!route) {
      run.markUnsupported("outbound_request", `outbound fetch ${method} ${request.url}: external ${external.name} scripts no response for ${method} ${url.pathname}`);
      return never();
    }
    const dedupeKey = external.dedupeBy ? request.headers.get(external.dedupeBy) : null;
    const args = { ...(await recordedRequest(request, init)), dedupeKey };
    const outcome = await effectPoint(run, inv, {
      kind: "io",
      target: `Fetch:${external.name}`,
      op: method,
      args,
      ladder: ladderNamed(run, "write"),
      injectedError: () => new TypeError("Network connection lost."),
      perform: async () => {
        let store = remembered.get(external.name);
        if (!store) remembered.set(external.name, (store = new Map()));
        const earlier = dedupeKey !== null ? store.get(dedupeKey) : undefined;
        if (earlier) return { reply: earlier, effective: false };
        /** @type {Reply} */
        let reply = DEFAULT_REPLY;
        if (route !== "default") {
          const counts = /** @type {number[]} */ (answered.get(external.name));
          reply = replyAt(route, counts[route.index]);
          counts[route.index]++;
        }
        if (dedupeKey !== null) store.set(dedupeKey, reply);
        return { reply, effective: true };
      },
      summarize: (value) => ({ status: value.reply.status, effective: value.effective, dedupeKey }),
    });
    return responseOf(outcome.reply);
  };
}
