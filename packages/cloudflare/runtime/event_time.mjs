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
