// @ts-check
/**
 * The sources a run's deliveries come from, as both schedulers read them: the binding
 * records' own (`run.eventSources`: a Durable Object's alarms, the queues the Worker consumes,
 * fed by the messages it produces), then the drive's, and the earliest time one of them has a
 * delayed event ready. A run whose records add no source, or whose extra sources stay empty, is driven
 * exactly as its drive's source alone.
 */

/** @typedef {import("./scheduler.mjs").Source} Source */

/**
 * The sources a drive's deliveries come from: the binding records' own first (`run.eventSources`,
 * records in setup order), then the drive's: an event a record made that is due now (an alarm,
 * a produced message) starts before the drive's next.
 * @param {import("../run.mjs").Run} run @param {Source} source @returns {Source[]}
 */
export function eventSources(run, source) {
  return [...run.eventSources, source];
}

/**
 * The earliest virtual time after now at which one of the sources has a delayed event
 * ready (`wake`), or null when none has.
 * @param {Source[]} sources @param {number} now @returns {number | null}
 */
export function earliestWake(sources, now) {
  /** @type {number | null} */
  let earliest = null;
  for (const source of sources) {
    const wake = source.wake?.() ?? null;
    if (wake !== null && wake > now && (earliest === null || wake < earliest)) earliest = wake;
  }
  return earliest;
}
