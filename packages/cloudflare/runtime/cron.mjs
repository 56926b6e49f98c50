// @ts-check
/**
 * The cron drive: a Cron Trigger's ticks delivered to the Worker's
 * `scheduled(controller, env, ctx)`.
 *
 * eutaxy.cloudflare.cron computes the ticks (the expression's first times from the virtual
 * epoch on) and writes each as an event `{id: "tick-<n>", atMs}`: the tick is due at the
 * virtual epoch plus `atMs` (event_time.mjs), and the drive adds nothing to it. One invocation
 * per tick attempt, `<tick id>#<attempt>`, with `controller.scheduledTime` the tick's time (so
 * a re-run keeps its tick's), `controller.cron` the expression, and `controller.noRetry()`.
 *
 * `noRetry()` is a decision point at `Cron:<drive name>`, op `no_retry`, payload
 * `{args: {tickId, scheduledTime}, result: {effective}}` (effective false when the tick had
 * already asked), with the platform's `decision` ladder: crash_before means it was never made
 * (the crashed attempt is run again), crash_after that it was made and the invocation died
 * after it (no re-run).
 *
 * A tick attempt failed when its handler threw or crashed (a fault, or the CPU limit). The drive
 * declares how often a failed tick runs again (`retries`; Cloudflare documents noRetry() but
 * not its retry count): at once, behind ticks already due, unless the attempt called
 * noRetry(), while core's redelivery rule allows it with `retries` as the platform limit
 * (`redeliveryStop`). Past its retries the tick is given up, recorded as `Cron:<name>`
 * `gave_up` `{args: {tickId, attempts}}` under the last attempt; stopped by
 * `bounds.maxRedeliveries` alone it is a cut (`run.recordCut`). Work passed to ctx.waitUntil
 * runs on past the background point (background.mjs) and never changes whether the tick failed.
 */

import { runBackground, settleHandler } from "./background.mjs";
import { assert } from "./assert.mjs";
import { NO_FAULTS, effectPoint, ladderNamed } from "./effects.mjs";
import { driveDue, timedEvents } from "./event_time.mjs";
import { maxRedeliveriesOf, redeliveryStop } from "./queue.mjs";
import { realConsole } from "./patch.mjs";

/** @typedef {{id: string, scheduledTime: number, attempts: number, due: number, noRetry: boolean}} Tick */

/**
 * @param {import("./run.mjs").Run} run
 * @param {{kind: "cron", name: string, cron: string, retries: number, events: {id: string, atMs?: number}[]}} drive
 * @param {(controller: object, env: object, ctx: object) => unknown} handler
 */
export async function driveCron(run, drive, handler) {
  assert(typeof drive.cron === "string" && drive.cron !== "", "the cron drive's plan carries no cron expression");
  assert(typeof drive.name === "string" && drive.name !== "", "the cron drive's plan carries no name");
  const retries = drive.retries;
  assert(Number.isInteger(retries) && retries >= 0, () => `the cron drive's retries is ${JSON.stringify(retries)}, not a non-negative integer`);
  assert(Array.isArray(drive.events), "the cron drive's plan carries no events list");
  const maxRedeliveries = maxRedeliveriesOf(run);
  const target = `Cron:${drive.name}`;
  /** @type {Tick[]} */
  const pending = timedEvents(drive.events, run.clock.now).map(({ event, index, due }) => {
    assert(typeof event?.id === "string", () => `cron tick ${index} of the plan carries no id`);
    assert(typeof event.atMs === "number", () => `cron tick ${event.id} of the plan carries no atMs (eutaxy.cloudflare.cron writes it)`);
    return { id: event.id, scheduledTime: due, attempts: 0, due, noRetry: false };
  });
  const maxAttempts = pending.length * (Math.min(retries, maxRedeliveries ?? Infinity) + 1);
  /** One attempt of `tick`, to its end; true when the run stopped. @param {Tick} tick */
  const attempt = async (tick) => {
    const number = ++tick.attempts;
    const inv = run.startInvocation(`${tick.id}#${number}`);
    const controller = Object.freeze({
      scheduledTime: tick.scheduledTime,
      cron: drive.cron,
      noRetry: () => {
        effectPoint(run, inv, {
          kind: "decision", target, op: "no_retry", args: { tickId: tick.id, scheduledTime: tick.scheduledTime },
          ladder: ladderNamed(run, "decision"),
          perform: () => {
            const effective = !tick.noRetry;
            tick.noRetry = true;
            return effective;
          },
          summarize: (effective) => ({ effective }),
        });
      },
    });
    const { outcome, background } = await settleHandler(run, inv, (env, ctx) => handler(controller, env, ctx));
    if (outcome.kind === "unsupported") {
      run.endInvocation(inv);
      return true;
    }
    run.recordOutcome(inv, "cron", outcome);
    if (outcome.kind === "threw") realConsole.error(`eutaxy: ${inv.id}: the scheduled handler threw:`, outcome.error);
    await runBackground(run, inv, target, background);
    run.endInvocation(inv);
    if (run.stopped) return true;
    if (outcome.kind === "returned" || tick.noRetry) return false;
    const stop = redeliveryStop(number, retries, maxRedeliveries);
    if (stop === null) {
      tick.due = run.clock.now;
      pending.push(tick);
    } else if (stop === "cut") {
      run.recordCut({ bound: "maxRedeliveries", where: target, invocation: inv.id, left: [tick.id], limit: /** @type {number} */ (maxRedeliveries), platformLimit: retries });
    } else {
      effectPoint(run, inv, { kind: "platform", target, op: "gave_up", args: { tickId: tick.id, attempts: number }, ladder: NO_FAULTS, perform: () => ({ gaveUp: true }), summarize: (result) => result });
    }
    return false;
  };
  await driveDue(run, pending, maxAttempts, attempt);
}
