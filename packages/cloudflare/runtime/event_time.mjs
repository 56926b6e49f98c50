// @ts-check
/**
 * When a drive's events are due: an event's `atMs` (virtual milliseconds since the run's start,
 * eutaxy.engine.scenario.event_at_ms checks it) makes it due at the virtual epoch plus that;
 * an event without one is due when the drive starts, as before the field was. The drives take
 * their events in order of time, then of listing, so a drive whose events carry no time keeps
 * its listing order exactly.
 */

import { EPOCH_MS } from "./globals.mjs";

/**
 * The drive's events with the virtual time each is due, in order of time, then of listing.
 * @template {object} E
 * @param {E[]} events @param {number} now the virtual time the drive starts at
 * @returns {{event: E, index: number, due: number}[]}
 */
export function timedEvents(events, now) {
  const timed = events.map((event, index) => {
    const atMs = /** @type {{atMs?: unknown}} */ (event)?.atMs;
    return { event, index, due: typeof atMs === "number" ? EPOCH_MS + atMs : now };
  });
  // Array.prototype.sort is stable: a tie keeps the listing order.
  return timed.sort((a, b) => a.due - b.due);
}

/**
 * Drive the events waiting in `pending` (in order of time) whose attempts may queue resends:
 * the scheduler starts the first waiting event that is due (one after another, or while a slot
 * is free); with none due, time passes to the earliest resend (the first of those in line on a
 * tie: the first due once the clock is there). `attempt` takes the event out of line for good or
 * puts it back with its next due time, and resolves to true when the run stopped. Bounded: no
 * more than `maxAttempts` attempts start.
 * @template {{id: string, due: number}} E
 * @param {import("./run.mjs").Run} run @param {E[]} pending @param {number} maxAttempts
 * @param {(event: E) => Promise<boolean>} attempt
 */
export async function driveDue(run, pending, maxAttempts, attempt) {
  let attempts = 0;
  const ready = () => pending.findIndex((event) => event.due <= run.clock.now);
  await run.scheduler.drive({
    next: () => {
      const at = attempts < maxAttempts ? ready() : -1;
      return at < 0 ? null : pending[at].id;
    },
    wake: () => (attempts < maxAttempts && pending.length ? Math.min(...pending.map((event) => event.due)) : null),
    start: () => {
      attempts++;
      return attempt(pending.splice(ready(), 1)[0]);
    },
  });
}
