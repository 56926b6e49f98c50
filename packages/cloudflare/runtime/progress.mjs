// @ts-check
/**
 * Progress marks for the host's watchdog. A Worker whose code never yields (`while (true) {}`)
 * stops every timer of the isolate, so the runtime cannot end such a run itself; the host can
 * stop workerd, and says what ran last if the runtime told it. So each invocation start and
 * each effect point writes one line to workerd's stdout, which reaches the host while the
 * isolate is still busy; the host keeps these lines out of its log (host/miniflare.mjs).
 */

/** The start of a progress line; no Worker's console output starts so. */
export const PROGRESS_PREFIX = "\u0001eutaxy-progress ";

const write = console.log.bind(console);

/**
 * @param {string} invocation @param {string} what "start", or the effect point ("D1:DB run #0")
 * @param {number | null} ordinal the point's ordinal (null at the start), where a rerun stops an
 * invocation that ran past the CPU limit after it
 */
export function progress(invocation, what, ordinal) {
  write(PROGRESS_PREFIX + JSON.stringify({ invocation, what, ordinal }));
}
