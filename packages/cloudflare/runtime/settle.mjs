// @ts-check
/**
 * Waiting for an invocation: the drive's one way to let user code run to its end.
 *
 * The loop never decides on real time. While an effect of the invocation is in flight it
 * waits for that effect (up to the scenario's budget, after which the effect counts as hung
 * and the run is UNSUPPORTED). Otherwise it lets the isolate's event loop turn once (a real
 * zero timer, a few microseconds in workerd), so every continuation already set off runs;
 * if nothing changed and the handler has not settled, the invocation is idle: its earliest
 * virtual timer fires (the clock jumping to its due time), or, with none, it is waiting on
 * something Eutaxy cannot see and the run is UNSUPPORTED. A crash or an unsupported touch
 * ends the wait at once.
 */

import { realTimer, realTurn } from "./patch.mjs";

/** Idle event-loop turns granted before an invocation with no timer counts as stuck. */
export const IDLE_TURNS = 3;

/** A loop bound: no invocation takes more steps than this. */
export const MAX_STEPS = 1_000_000;

/**
 * @typedef {{kind: "returned", value: unknown} | {kind: "threw", error: unknown}
 *   | {kind: "crashed"} | {kind: "unsupported"}} Outcome
 */

/**
 * @param {import("./run.mjs").Run} run @param {import("./effects.mjs").Invocation} inv
 * @param {Promise<unknown>} promise the handler's (or background work's) promise
 * @returns {Promise<Outcome>}
 */
export async function settle(run, inv, promise) {
  // A concurrent run: the turn scheduler decides what runs; this only waits for the outcome.
  if (run.turns) return run.turns.settle(inv, promise);
  /** @type {Outcome | null} */
  let settled = null;
  promise.then(
    (value) => { settled = { kind: "returned", value }; inv.bump(); },
    (error) => { settled = { kind: "threw", error }; inv.bump(); },
  );
  let idle = 0;
  for (let step = 0; step < MAX_STEPS; step++) {
    if (inv.crashed) return { kind: "crashed" };
    if (run.stopped) return { kind: "unsupported" };
    if (settled) return settled;
    if (inv.inflight > 0) {
      let hung = false;
      const cancel = realTimer(run.budgetMs, () => { hung = true; inv.bump(); });
      await inv.changed();
      cancel();
      if (hung && inv.inflight > 0) {
        run.markUnsupported("effect_hung", `an effect (or Web Crypto call) of ${inv.id} did not finish within the budget of ${run.budgetMs} ms`);
        return { kind: "unsupported" };
      }
      idle = 0;
      continue;
    }
    const version = inv.version;
    await realTurn();
    if (inv.version !== version || settled) { idle = 0; continue; }
    if (run.globals.fireNext(inv)) { idle = 0; continue; }
    if (run.stopped) return { kind: "unsupported" };
    if (++idle >= IDLE_TURNS) {
      run.markUnsupported("unseen_wait", `invocation ${inv.id} waits on something Eutaxy cannot see (no effect in flight, no timer set)`);
      return { kind: "unsupported" };
    }
  }
  run.markUnsupported("step_limit", `invocation ${inv.id} took more than ${MAX_STEPS} steps`);
  return { kind: "unsupported" };
}
