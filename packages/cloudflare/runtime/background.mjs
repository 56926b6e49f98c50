// @ts-check
/**
 * Background work: what a handler hands to `ctx.waitUntil`, and the one point that can cut it.
 *
 * Promises given to `waitUntil` run as the JavaScript runs them (already started when the
 * handler hands them over), inside the same invocation. After the handler returned and the
 * drive recorded its own outcome (the implicit acks, the response), work still pending meets
 * the background point: target `Queue:<name>` or `Http:<path>`, op `background`, payload
 * `{args: {pending}}` (how many waitUntil promises had not settled), ladder `(cut_off,)`,
 * the only point that takes cut_off. With no fault the drive waits for the work to finish
 * (result `{cutOff: false}`). Under cut_off (`call`, then `fault`) the invocation ends there:
 * an effect whose real I/O is in flight commits and records its result, but its continuation
 * never runs, and work not yet started is lost (every later effect of the invocation is
 * refused, as after a crash). No point is made when nothing is pending.
 *
 * Background work never changes the acknowledgement or the response: both are decided
 * before this point, and nothing here feeds back into them.
 */

import { assert } from "./assert.mjs";
import { effectPoint, ladderNamed } from "./effects.mjs";
import { drain } from "./settle.mjs";
import { refuse } from "./unsupported.mjs";


/** What one invocation handed to ctx.waitUntil, and which of it is still running. */
export class Background {
  constructor() {
    /** @type {Promise<unknown>[]} */
    this.promises = [];
    this.settled = 0;
  }

  /** How many waitUntil promises have not settled yet. */
  get pending() {
    return this.promises.length - this.settled;
  }

  /** @param {unknown} value what user code passed to waitUntil */
  add(value) {
    const promise = Promise.resolve(value);
    const done = () => { this.settled++; };
    promise.then(done, done);
    this.promises.push(promise);
  }
}

/**
 * The ExecutionContext an invocation's handler gets. `ctx.access` is the identity Cloudflare
 * Access hands a Worker it stands in front of (`ctx.access.getIdentity()`); Access is not
 * modelled, so reading it marks the run UNSUPPORTED (`access_identity`) rather than handing the
 * Worker an `undefined` production would not give it.
 * @param {Background} background
 */
export function makeContext(background) {
  const ctx = {
    waitUntil: (/** @type {unknown} */ promise) => { background.add(promise); },
    passThroughOnException: () => {},
    props: {},
  };
  // Not enumerable, so spreading or logging ctx does not count as reading it.
  Object.defineProperty(ctx, "access", {
    get() {
      throw refuse("access_identity", "the Worker read ctx.access, the identity Cloudflare Access gives a request it let through; Access is not modelled");
    },
  });
  return ctx;
}

/**
 * Call a drive's handler as `inv`, with the invocation's env and a fresh ctx, and wait for it to
 * settle at its return (`settleAtReturn`): a handler that throws before returning a promise
 * settles as one that rejects. Its outcome, and the background work it handed to ctx.waitUntil.
 * A callee Worker's invocation (bindings/callee.mjs) gives its own env, its ctx's props, and
 * `enter`, which runs the call inside the scheduler's hosting of it.
 * @param {import("./run.mjs").Run} run @param {import("./effects.mjs").Invocation} inv
 * @param {(env: object, ctx: object) => unknown} call
 * @param {{env?: object, props?: unknown, enter?: (call: () => unknown) => unknown}} [hosted]
 * @returns {Promise<{outcome: import("./settle.mjs").Outcome, background: Background}>}
 */
export async function settleHandler(run, inv, call, hosted = {}) {
  const background = new Background();
  const ctx = makeContext(background);
  if ("props" in hosted) ctx.props = structuredClone(hosted.props);
  const env = hosted.env ?? run.envFor(inv);
  const enter = hosted.enter ?? ((/** @type {() => unknown} */ called) => called());
  /** @type {Promise<unknown>} */
  let promise;
  try {
    promise = Promise.resolve(enter(() => call(env, ctx)));
  } catch (error) {
    promise = Promise.reject(error);
  }
  return { outcome: await run.scheduler.settleAtReturn(inv, promise), background };
}

/**
 * The background point and what follows it. Call it with nothing awaited since the handler
 * settled, so what is in flight at the point is what was in flight when the handler returned.
 * @param {import("./run.mjs").Run} run @param {import("./effects.mjs").Invocation} inv
 * @param {string} target @param {Background} background
 */
export async function runBackground(run, inv, target, background) {
  if (background.promises.length === 0 || inv.dead || run.stopped) return;
  const pending = background.pending;
  if (pending === 0) return;
  assert(pending > 0, () => `invocation ${inv.id} counts ${pending} waitUntil promises pending`);
  const fault = effectPoint(run, inv, {
    kind: "platform", target, op: "background", args: { pending }, ladder: ladderNamed(run, "background"),
    perform: () => ({ cutOff: false }), summarize: (result) => result,
  });
  if (fault === "cut_off") {
    await drain(run, inv);
    return;
  }
  await run.scheduler.settle(inv, Promise.allSettled(background.promises));
}
