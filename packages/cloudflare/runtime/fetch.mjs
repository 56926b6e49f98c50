// @ts-check
/**
 * Outbound fetch, answered from the scenario's declared externals; it never reaches the network.
 *
 * `plan.scenario.externals` is `[{name, host, responses, dedupeBy}]` (docs/contract.md).
 * A request's host matches an external whose `host` is that name, or a `*.suffix` pattern
 * the host ends in (`*.pay.example` takes `api.pay.example`, not `pay.example`). Its reply
 * is the first scripted response with the request's method and URL path; an external with
 * no responses answers 200 with an empty body. A host no external declares, or a request
 * no scripted response answers, makes the run UNSUPPORTED (`outbound_request`, naming the
 * URL), and the caller's promise never settles.
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

import { effectPoint, never, WRITE_FAULTS } from "./effects.mjs";

/**
 * @typedef {{method?: string, path?: string, status?: number, headers?: Record<string, string>, body?: unknown}} Scripted
 * @typedef {{name: string, host: string, responses?: Scripted[], dedupeBy?: string | null}} External
 * @typedef {{status: number, headers: Record<string, string>, body: unknown}} Reply
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

/**
 * The scripted reply to a request, or null when the external scripts replies and none fits.
 * @param {External} external @param {string} method @param {string} path @returns {Reply | null}
 */
export function replyFor(external, method, path) {
  const responses = external.responses ?? [];
  if (responses.length === 0) return { status: 200, headers: {}, body: null };
  const found = responses.find((r) => (r.method == null || r.method.toUpperCase() === method) && (r.path == null || r.path === path));
  if (!found) return null;
  return { status: Number.isInteger(found.status) ? /** @type {number} */ (found.status) : 200, headers: found.headers ?? {}, body: found.body ?? null };
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
    const reply = replyFor(external, method, url.pathname);
    if (!reply) {
      run.markUnsupported("outbound_request", `outbound fetch ${method} ${request.url}: external ${external.name} scripts no response for ${method} ${url.pathname}`);
      return never();
    }
    // A string body is read as given, so a request made at once stays a point made at once.
    /** @type {string | null} */
    let text;
    if (typeof init?.body === "string") text = init.body;
    else if (request.body === null) text = null;
    else text = await request.text();
    /** @type {Record<string, string>} */
    const headers = {};
    for (const [name, value] of request.headers) headers[name] = value;
    const dedupeKey = external.dedupeBy ? request.headers.get(external.dedupeBy) : null;
    const args = { url: request.url, method, headers, body: recordedBody(text, request.headers.get("content-type") ?? ""), dedupeKey };
    const outcome = await effectPoint(run, inv, {
      kind: "io",
      target: `Fetch:${external.name}`,
      op: method,
      args,
      ladder: WRITE_FAULTS,
      injectedError: () => new TypeError("Network connection lost."),
      perform: async () => {
        let store = remembered.get(external.name);
        if (!store) remembered.set(external.name, (store = new Map()));
        const earlier = dedupeKey !== null ? store.get(dedupeKey) : undefined;
        if (earlier) return { reply: earlier, effective: false };
        if (dedupeKey !== null) store.set(dedupeKey, reply);
        return { reply, effective: true };
      },
      summarize: (value) => ({ status: value.reply.status, effective: value.effective, dedupeKey }),
    });
    return responseOf(outcome.reply);
  };
}
