// @ts-check
/**
 * The http drive: a scenario's requests sent to the Worker's `fetch(request, env, ctx)`
 * by the caller the drive declares.
 *
 * One invocation per attempt, `<request id>#<attempt>`. The Worker's answer is the response
 * point, target `Http:<path>` (the path without its query), op `response`, payload
 * `{args: {requestId, method, path}, result: {status, ok, body}}`. Its ladder is
 * `(crash_before,)`, the response the caller never received, plus `ambiguous` when the
 * caller declares `deadlineMs`: the response was sent (its result is recorded) but the
 * caller counted it failed, and the handler carries on. An uncaught exception, or a handler
 * resolving to anything but a Response, is a 500, as the Workers runtime answers.
 *
 * Cloudflare never retries an inbound request, so the declared caller decides resends:
 * an attempt failed when the caller got no response (the invocation crashed, or crash_before
 * at the response), the ambiguous fault, an answer later than `deadlineMs` in virtual time
 * after the request was sent, or a status its `retryOn` counts as failed (`non-2xx`, the
 * default: anything but 2xx; `5xx`: 500 and above). A failed attempt is sent again while
 * core's redelivery rule allows it, with the caller's `retries` as the platform limit
 * (`redeliveryStop`, eutaxy.core.faults.redelivery_stop); past its retries the caller gives
 * up, recorded as `Http:<path>` `gave_up` `{args: {requestId, attempts}}` under the last
 * attempt's invocation. Stopped by `bounds.maxRedeliveries` alone, the request is left undone:
 * a cut (`run.recordCut`), never a give-up.
 * A request with `atMs` is sent that many virtual milliseconds after the run's start
 * (event_time.mjs): it waits until then, requests in order of time, then of listing.
 * The caller decides at the response point, before any background work runs on. A resend is
 * queued then, due `delaysMs[attempts - 1]` later in virtual time (the last delay repeats;
 * none means 0), behind requests already waiting, as a queue redelivers; when nothing waiting
 * is due the clock moves to the earliest resend.
 *
 * Around the handler's return nothing is awaited: the response point (its result recorded in
 * place, the body filled in once the Response is read), the caller's decision and the
 * background point (background.mjs) follow at once, so waitUntil work is where it was when the
 * handler returned. A crash_before at the response kills the invocation and its background work.
 *
 * A sequential run lets every attempt finish before the next starts, so a handler still
 * running at the caller's deadline is answered late rather than overlapped by the resend.
 *
 * A concurrent run (scheduler/turns.mjs) starts attempts through the turn scheduler, and the caller's
 * deadline is a virtual timer set when the request is sent: an engine alarm (`Scheduler.alarm`),
 * no timer of the Worker's, so it leaves no trace and reads no clock. The caller decides once
 * per attempt, whichever comes first: at the response point, at a crash (no answer), or at the
 * deadline if the handler has not answered by then. A decision at the deadline (the alarm, or
 * an answer reached after it before the alarm fired) is taken at the deadline's instant, so a
 * resend is due `delaysMs[attempts - 1]` after it and may start while the first attempt still
 * runs; the handler carries on, and its late response is recorded without a second decision
 * (its crash_before still kills it). As in a sequential run an answer at the deadline's
 * instant is in time: the alarm fires once the clock has passed it, or at it once nothing else
 * can move. A waiting resend starts only when it is due (`next`) and, when nothing else can
 * move, time passes to it (`wake`), timers and the deadline due first firing first.
 *
 * Static assets. With the config's `assets`, a request the assets answer (bindings/assets.mjs
 * `assetsAnswer`: run_worker_first, then whether the asset worker serves it) never reaches the
 * Worker, as on Cloudflare: each attempt of it is an invocation whose one point is the assets'
 * answer, target `Assets:<path>`, op `response`, with no faults (static files are no effect a
 * fault or a retry changes), payload as a Worker's response. The assets are asked once per
 * request, before the first is sent, so no I/O outside an effect point runs during the run.
 */

import { runBackground, settleHandler } from "./background.mjs";
import { assetsAnswer, assetsOf } from "./bindings/assets.mjs";
import { assert } from "./assert.mjs";
import { NO_FAULTS, effectPoint, ladderNamed } from "./effects.mjs";
import { driveDue, timedEvents } from "./event_time.mjs";
import { maxRedeliveriesOf, redeliveryStop } from "./queue.mjs";
import { realConsole } from "./patch.mjs";
import { drain, waitForChange } from "./settle.mjs";

/** The origin requests are addressed to (a reserved name: nothing real answers it). */
export const REQUEST_ORIGIN = "https://worker.eutaxy.invalid";

/**
 * @typedef {{retries: number, retryOn: "non-2xx" | "5xx" | null, delaysMs: number[], deadlineMs: number | null}} Caller
 * @typedef {{id: string, method: string, path: string, headers: Record<string, string>, body: unknown,
 *   attempts: number, due: number}} PendingRequest
 */

/**
 * The drive's caller policy, as the plan must carry it: eutaxy.cloudflare.http (and rpc) write
 * every field, so the drive fills in nothing, and a plan without one is Eutaxy's own bug. An
 * rpc caller has no `retryOn` (every exception is a failure): null here.
 * @param {any} caller @param {"http" | "rpc"} [drive] @returns {Caller}
 */
export function callerPolicy(caller, drive = "http") {
  const natural = (/** @type {unknown} */ value) => Number.isInteger(value) && /** @type {number} */ (value) >= 0;
  assert(caller !== null && typeof caller === "object", `the ${drive} drive's plan carries no caller`);
  assert(natural(caller.retries), () => `the ${drive} caller's retries is ${JSON.stringify(caller.retries)}, not a non-negative integer`);
  if (drive === "rpc") assert(caller.retryOn === undefined, () => `the rpc caller carries retryOn ${JSON.stringify(caller.retryOn)}; an rpc caller has none`);
  else assert(caller.retryOn === "non-2xx" || caller.retryOn === "5xx", () => `the http caller's retryOn is ${JSON.stringify(caller.retryOn)}, not non-2xx or 5xx`);
  assert(Array.isArray(caller.delaysMs) && caller.delaysMs.every(natural), () => `the ${drive} caller's delaysMs is ${JSON.stringify(caller.delaysMs)}, not a list of non-negative integers`);
  assert(caller.deadlineMs === null || natural(caller.deadlineMs), () => `the ${drive} caller's deadlineMs is ${JSON.stringify(caller.deadlineMs)}, not null or a non-negative integer`);
  return { retries: caller.retries, retryOn: caller.retryOn ?? null, delaysMs: caller.delaysMs, deadlineMs: caller.deadlineMs };
}

/** Whether the caller counts a status as failed. @param {Caller} caller @param {number} status */
export function statusFailed(caller, status) {
  return caller.retryOn === "5xx" ? status >= 500 : !(status >= 200 && status < 300);
}

/** The virtual delay before resend number `attempts` (1 before the second attempt). @param {Caller} caller @param {number} attempts */
export function resendDelay(caller, attempts) {
  const delays = caller.delaysMs;
  if (delays.length === 0) return 0;
  return delays[Math.min(attempts - 1, delays.length - 1)];
}

/** The path a target names: the request path without its query. @param {string} path */
export function targetPath(path) {
  const at = path.search(/[?#]/);
  return at >= 0 ? path.slice(0, at) : path;
}

/** Each inbound request's headers, with the request's id: what the Access record (bindings/access.mjs) asks. */
const INBOUND = new WeakMap();

/** The id of the inbound request whose headers these are, else undefined. @param {Headers} headers */
export function inboundRequest(headers) {
  return INBOUND.get(headers);
}

/**
 * The Request the handler gets: a JSON body (anything but a string) is sent as JSON with
 * `content-type: application/json` unless the request names one; a string as text.
 * @param {PendingRequest} item
 */
export function buildRequest(item) {
  const headers = new Headers(item.headers ?? {});
  /** @type {string | null} */
  let body = null;
  if (item.body !== undefined && item.body !== null && item.method !== "GET" && item.method !== "HEAD") {
    if (typeof item.body === "string") {
      body = item.body;
    } else {
      body = JSON.stringify(item.body);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
    }
  }
  const request = new Request(REQUEST_ORIGIN + item.path, { method: item.method, headers, body });
  INBOUND.set(request.headers, item.id);
  return request;
}

/** The body as recorded: JSON parsed when the response says JSON and it parses, else text. @param {Response} response @param {string} text */
function recordedBody(response, text) {
  if (/json/i.test(response.headers.get("content-type") ?? "") && text !== "") {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * The body of the Worker's Response as recorded; null when it cannot be read. A body still
 * streaming after the budget (waiting on work that was cut off, say) makes the run
 * UNSUPPORTED rather than hanging it.
 * @param {import("./run.mjs").Run} run @param {string} invocation @param {Response} response
 */
async function bodyOf(run, invocation, response) {
  /** @type {{text: string} | {failed: true} | null} */
  let read = null;
  /** @type {() => void} */
  let wake = () => {};
  const changed = new Promise((resolve) => { wake = () => resolve(null); });
  /** @type {Promise<string>} */
  let text;
  try {
    text = response.text();
  } catch {
    return null;
  }
  text.then((value) => { read = { text: value }; wake(); }, () => { read = { failed: true }; wake(); });
  if (await waitForChange(run, changed, wake, () => read === null)) {
    run.markUnsupported("unseen_wait", `the response body of ${invocation} did not finish within the budget of ${run.effectHangMs} ms`);
    return null;
  }
  const done = /** @type {{text: string} | {failed: true}} */ (read);
  return "text" in done ? recordedBody(response, done.text) : null;
}

/**
 * @param {import("./run.mjs").Run} run
 * @param {{kind: "http", name?: string, events: any[], caller?: any}} drive
 * @param {(request: Request, env: object, ctx: object) => unknown} handler
 */
export async function driveHttp(run, drive, handler) {
  const caller = callerPolicy(drive.caller);
  // eutaxy.core.faults.response_faults: an answer a caller waits for past its deadline may be lost too.
  const ladder = ladderNamed(run, caller.deadlineMs === null ? "response" : "responseWithDeadline");
  assert(Array.isArray(drive.events), "the http drive's plan carries no events list");
  // eutaxy.cloudflare.http writes every field of a request; the drive fills in none.
  // A request with `atMs` is sent then (event_time.mjs); they wait in order of time.
  const pending = timedEvents(drive.events, 0).map(({ event, index, due }) => {
    assert(typeof event?.id === "string", () => `http request ${index} of the plan carries no id`);
    assert(typeof event.method === "string" && typeof event.path === "string", () => `http request ${event.id} of the plan carries no method or path`);
    assert(event.headers !== null && typeof event.headers === "object", () => `http request ${event.id} of the plan carries no headers`);
    return { id: event.id, method: event.method.toUpperCase(), path: event.path, headers: event.headers, body: event.body, attempts: 0, due };
  });
  /** @type {Map<string, {status: number, body: unknown}>} the assets' answer to each request they answer */
  const fromAssets = new Map();
  const assets = assetsOf(run.config);
  if (assets) {
    for (const item of pending) {
      const response = await assetsAnswer(assets, run.realEnv, buildRequest(item), targetPath(item.path));
      if (response) fromAssets.set(item.id, { status: response.status, body: recordedBody(response, await response.text()) });
    }
    // One request reaches the Worker: it needs its fetch() handler (the error names it, as without assets).
    if (pending.some((item) => !fromAssets.has(item.id))) run.handler("fetch");
  }
  await driveCalls(run, pending, caller, {
    drive: "http",
    target: (item) => `Http:${targetPath(item.path)}`,
    answered: (item, number) => {
      const answered = fromAssets.get(item.id);
      return answered ? () => answerFromAssets(run, item, number, targetPath(item.path), answered, caller, maxRedeliveriesOf(run), pending) : null;
    },
    call: (item, env, ctx) => handler(buildRequest(item), env, ctx),
    respond: (inv, item, target, outcome, late) => {
      if (outcome.kind === "threw") realConsole.error(`eutaxy: ${inv.id}: the fetch handler threw:`, outcome.error);
      /** @type {Response | null} */
      const response = outcome.kind === "returned" && outcome.value instanceof Response ? outcome.value : null;
      const status = response ? response.status : 500;
      const point = respond(run, inv, target, ladder, { requestId: item.id, method: item.method, path: item.path }, status);
      const fill = point.fill;
      return {
        failed: point.fault !== "none" || late || statusFailed(caller, status),
        // The Response's body is read after the caller decided and the background work was started.
        after: fill ? async () => fill(response ? await bodyOf(run, inv.id, response) : "") : null,
      };
    },
  });
}

/**
 * @template {{id: string, attempts: number, due: number}} Item
 * @typedef {object} Calls how a caller's drive (http, rpc) makes and answers one attempt
 * @property {string} drive the kind of event delivered, as the invocation's outcome names it
 * @property {string} [key] what a give-up's args call the item (`requestId` unless named)
 * @property {(item: Item) => string} target the target of the attempt's response point
 * @property {(item: Item, number: number) => (() => Promise<boolean>) | null} [answered] an attempt
 *   answered without the Worker (the assets'), else null
 * @property {(item: Item, env: object, ctx: object) => unknown} call the Worker's handler, called
 * @property {(inv: import("./effects.mjs").Invocation, item: Item, target: string,
 *   outcome: import("./settle.mjs").Outcome, late: boolean) => {failed: boolean, after: (() => Promise<void>) | null}} respond
 *   the response point of an attempt that did not crash, made with nothing awaited since the
 *   handler settled: whether the caller counts it failed, and what to finish after the caller decided
 */

/**
 * The caller's drive, shared by the http and rpc drives: each waiting item is sent as an
 * attempt (one invocation), the caller decides once per attempt (a resend due its delay, a cut,
 * or giving up), and the scheduler starts the attempts (see the module's note).
 * @template {{id: string, attempts: number, due: number}} Item
 * @param {import("./run.mjs").Run} run @param {Item[]} pending the items waiting, in order of time
 * @param {Caller} caller @param {Calls<Item>} calls
 */
export async function driveCalls(run, pending, caller, calls) {
  const maxRedeliveries = maxRedeliveriesOf(run);
  // Each attempt either ends its item or queues one resend, so this bounds the loop.
  const maxAttempts = pending.length * (Math.min(caller.retries, maxRedeliveries ?? Infinity) + 1);
  /**
   * One attempt of `item`, to its end; true when the run stopped.
   * @param {Item} item
   */
  const attempt = async (item) => {
    // The attempt's own number: in a concurrent run a resend may start while this one runs.
    const number = ++item.attempts;
    const answered = calls.answered?.(item, number) ?? null;
    if (answered) return answered();
    const target = calls.target(item);
    const inv = run.startInvocation(`${item.id}#${number}`);
    const sentAt = run.clock.now;
    const deadline = caller.deadlineMs === null ? null : sentAt + caller.deadlineMs;
    let decided = false;
    /** True when the deadline is a scheduler alarm: a concurrent run, where the caller stops waiting then. */
    let deadlineAlarm = false;
    let cancelDeadline = () => {};
    /**
     * The caller's one decision on this attempt: a failed one is resent (due its delay after
     * the decision: in a concurrent run one on an attempt that ran past the deadline was taken
     * at the deadline) or given up.
     * @param {boolean} failed @param {boolean} pastDeadline
     */
    const decide = (failed, pastDeadline) => {
      if (decided) return;
      decided = true;
      cancelDeadline();
      if (!failed) return;
      const at = deadlineAlarm && pastDeadline && deadline !== null ? deadline : run.clock.now;
      failedAttempt(run, inv, item, number, at, target, caller, maxRedeliveries, pending, calls.key);
    };
    // The deadline is an engine alarm where the scheduler keeps them (a concurrent run);
    // a sequential run waits for every answer.
    const cancelAlarm = deadline === null ? null : run.scheduler.alarm(deadline, () => decide(true, true));
    if (cancelAlarm) {
      deadlineAlarm = true;
      cancelDeadline = cancelAlarm;
    }
    const { outcome, background } = await settleHandler(run, inv, (env, ctx) => calls.call(item, env, ctx));
    if (outcome.kind === "unsupported") {
      cancelDeadline();
      run.endInvocation(inv);
      return true;
    }
    run.recordOutcome(inv, calls.drive, outcome);
    // From the handler settling to the background point nothing is awaited, so the work it
    // left running is where it was when it returned.
    /** @type {(() => Promise<void>) | null} */
    let after = null;
    if (outcome.kind !== "crashed") {
      const late = deadline !== null && run.clock.now > deadline;
      const answer = calls.respond(inv, item, target, outcome, late);
      after = answer.after;
      decide(answer.failed, late);
    } else {
      decide(true, deadline !== null && run.clock.now > deadline);
    }
    // The caller has decided (now, or at its deadline), before background work runs on.
    const rest = inv.crashed ? drain(run, inv) : runBackground(run, inv, target, background);
    if (after) await after();
    await rest;
    cancelDeadline();
    run.endInvocation(inv);
    return run.stopped;
  };
  await driveDue(run, pending, maxAttempts, attempt);
}

/**
 * One attempt of a request the assets answer: its invocation records the answer at
 * `Assets:<path>` (no faults) and the caller decides on its status as on a Worker's; the Worker
 * never runs. True when the run stopped.
 * @param {import("./run.mjs").Run} run @param {PendingRequest} item @param {number} number @param {string} path
 * @param {{status: number, body: unknown}} answered @param {Caller} caller @param {number | null} maxRedeliveries
 * @param {PendingRequest[]} pending
 */
function answerFromAssets(run, item, number, path, answered, caller, maxRedeliveries, pending) {
  const target = `Assets:${path}`;
  const inv = run.startInvocation(`${item.id}#${number}`);
  const result = { status: answered.status, ok: answered.status >= 200 && answered.status < 300, body: answered.body };
  effectPoint(run, inv, { kind: "platform", target, op: "response", args: { requestId: item.id, method: item.method, path: item.path }, ladder: NO_FAULTS, perform: () => result, summarize: (value) => value });
  // The caller's resend, cut or giving up is the caller's, at its target as for a Worker's answer.
  if (statusFailed(caller, answered.status)) failedAttempt(run, inv, item, number, run.clock.now, `Http:${path}`, caller, maxRedeliveries, pending);
  run.endInvocation(inv);
  return Promise.resolve(run.stopped);
}

/**
 * The caller's answer to a failed attempt, decided at `at`: a resend due its delay later
 * (queued in `pending`), a cut when the bound stops a resend the caller would make, or giving
 * up past its retries (`gave_up`, its args naming the item under `key`: an http request's
 * `requestId`, an rpc call's `callId`).
 * @template {{id: string, due: number}} Item
 * @param {import("./run.mjs").Run} run @param {import("./effects.mjs").Invocation} inv @param {Item} item
 * @param {number} number @param {number} at @param {string} target @param {Caller} caller
 * @param {number | null} maxRedeliveries @param {Item[]} pending @param {string} [key]
 */
function failedAttempt(run, inv, item, number, at, target, caller, maxRedeliveries, pending, key = "requestId") {
  const stop = redeliveryStop(number, caller.retries, maxRedeliveries);
  if (stop === null) {
    item.due = at + resendDelay(caller, number);
    pending.push(item);
  } else if (stop === "cut") {
    // The caller would resend it: the bound cut the run here, and the request is left undone.
    run.recordCut({ bound: "maxRedeliveries", where: target, invocation: inv.id, left: [item.id], limit: /** @type {number} */ (maxRedeliveries), platformLimit: caller.retries });
  } else {
    effectPoint(run, inv, { kind: "platform", target, op: "gave_up", args: { [key]: item.id, attempts: number }, ladder: NO_FAULTS, perform: () => ({ gaveUp: true }), summarize: (result) => result });
  }
}

/**
 * The response point, decided and recorded at once: nothing the handler left running moves
 * between the handler settling and this point, nor between it and the background point.
 * The Response's body is read afterwards, so the recorded result is filled in by `fill`
 * (its place in the log, and so the log's order, is fixed here); crash_before records none.
 * @param {import("./run.mjs").Run} run @param {import("./effects.mjs").Invocation} inv
 * @param {string} target @param {readonly string[]} ladder
 * @param {{requestId: string, method: string, path: string}} args @param {number} status
 * @returns {{fault: string, fill: ((body: unknown) => void) | null}}
 */
function respond(run, inv, target, ladder, args, status) {
  const result = { status, ok: status >= 200 && status < 300, body: /** @type {unknown} */ (null) };
  /** @type {string} */
  const fault = effectPoint(run, inv, { kind: "platform", target, op: "response", args, ladder, perform: () => result, summarize: (value) => value });
  if (fault === "crash_before") return { fault, fill: null };
  return { fault, fill: (body) => { result.body = body; } };
}
