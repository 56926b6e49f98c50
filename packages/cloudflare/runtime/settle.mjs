// @ts-check
/**
 * Waiting, shared by both schedulers (scheduler/sequential.mjs, scheduler/turns.mjs) and the
 * drives: what an invocation's wait ends in (`Outcome`), the loop bounds, and the one wait for
 * real work in flight (`waitForChange`).
 *
 * Real work in flight (an effect's I/O, a Web Crypto call, a Response body being read) is
 * waited for with no virtual time passing, up to the effect hang threshold (`effectHangMs`,
 * resolved by the engine and carried in the plan): work still running after that makes the
 * run UNSUPPORTED (`effect_hung`; a response body, `unseen_wait`) rather than hanging it.
 */

import { assert } from "./assert.mjs";
import { realTimer } from "./patch.mjs";

/**
 * The most changes `drain` waits through: far more than the effects and Web Crypto calls a
 * dead invocation can have in flight, so reaching it means a change that drains nothing.
 */
const DRAIN_CHANGES_MAX = 1_000_000;

/**
 * Idle event-loop turns granted before an invocation with no effect in flight and no timer
 * set counts as waiting on something Eutaxy cannot see. The sequential scheduler counts the
 * idle turns of the invocation's own loop; the turn scheduler counts passes that found
 * nothing to move, each after a quiesce whose last event-loop turn was already idle, and
 * grants one pass more (see scheduler/turns.mjs `drive`).
 */
export const IDLE_TURNS = 3;

/** A loop bound: no invocation takes more steps than this. */
export const MAX_STEPS = 1_000_000;

/**
 * @typedef {{kind: "returned", value: unknown} | {kind: "threw", error: unknown}
 *   | {kind: "crashed"} | {kind: "unsupported"}} Outcome
 */

/**
 * The one wait for real work in flight: until `changed` resolves, or until the effect hang
 * threshold passes, when `wake` is called so that `changed` resolves anyway. True when it
 * hung: the threshold passed and `busy()` still holds.
 * @param {import("./run.mjs").Run} run @param {Promise<unknown>} changed
 * @param {() => void} wake @param {() => boolean} busy
 */
export async function waitForChange(run, changed, wake, busy) {
  let hung = false;
  const cancel = realTimer(run.effectHangMs, () => { hung = true; wake(); });
  await changed;
  cancel();
  return hung && busy();
}

/**
 * Wait until no effect of a dead invocation is in flight, so each one's result is recorded
 * before the drive moves on (its continuation never runs: the invocation is dead).
 * @param {import("./run.mjs").Run} run @param {import("./effects.mjs").Invocation} inv
 */
export async function drain(run, inv) {
  // Bounded: a dead invocation starts no effect (effects.mjs answers it never()), so the
  // changes come from the work in flight ending and the handler settling; a pass that sees
  // none within effectHangMs ends the run, and DRAIN_CHANGES_MAX passes are an internal error.
  for (let pass = 0; inv.inflight > 0 && !run.stopped; pass++) {
    assert(pass < DRAIN_CHANGES_MAX, () => `${inv.id} still has ${inv.inflight} effects in flight after ${pass} changes`);
    if (await waitForChange(run, inv.changed(), () => inv.bump(), () => inv.inflight > 0)) {
      run.markUnsupported("effect_hung", `an effect of ${inv.id} did not finish within the budget of ${run.effectHangMs} ms`);
      return;
    }
  }
}
