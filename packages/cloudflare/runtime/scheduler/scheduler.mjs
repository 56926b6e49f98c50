// @ts-check
/**
 * The scheduler interface: what decides which invocation runs, and when virtual time passes.
 *
 * Two implementations, one file each, chosen once per run by `createScheduler`:
 * `sequential.mjs` (`bounds.maxConcurrentInvocations` 1: one invocation in flight at a time,
 * fault decisions only) and `turns.mjs` (above 1: invocations interleave at their effects and
 * every turn is a decision). Drives, binding records and the effect point talk to the run's
 * scheduler only through these methods and never ask which one it is:
 *
 * - `drive(source)`: perform a drive's deliveries to the end (or until the run is UNSUPPORTED).
 *   A source is `{next(): string | null, start(): Promise<unknown>, wake?(): number | null}`:
 *   `next` names the event the next start would deliver (null when none is ready), `start`
 *   performs one whole delivery (it resolves to true when the run stopped), and `wake` gives
 *   the virtual time a delayed event (a caller's resend) becomes ready. The binding records'
 *   own sources (`run.eventSources`: alarms, messages produced onto a queue the Worker
 *   consumes) are driven with it, before it (sources.mjs `eventSources`): the drive ends when
 *   none of them has an event left.
 *   A source marked `auto` (an object's work after its answer, after_work.mjs) is started by
 *   the turn scheduler with no decision whenever `next` names something, and asked to
 *   `settle` (end the deliveries that came to rest) before each decision; the sequential
 *   scheduler drives it as any other.
 * - `bind(inv)` / `release(inv)`: an invocation starts / its drive is done with it.
 * - `running()`: the invocation whose code is running now (null between invocations).
 * - `hostCall(inv, fn)`: run a Durable Object call's code as `inv`'s, so `running()` names it
 *   in everything `fn` starts (the caller's async context does not reach the object); its `handOver(to, object,
 *   keep)` hands what the object's code goes on doing after the answer to the object's work.
 * - `runFresh(inv, fn)`: run the object's own code (a timer it fires) as `inv`'s.
 * - `host(caller, child)`: a callee's invocation hosted by a call of `caller`'s: its code runs
 *   as its own (`enter`: in a concurrent run in a context of its own, its effects turns) until
 *   `leave`; the caller waits at the call meanwhile.
 * - `track(work)`, `concurrent`: an object's work after its answers (after_work.mjs) and whether
 *   the scheduler interleaves it.
 * - `park(inv, target, op)`: an `io` effect point asks to wait for its turn; a promise to
 *   await, or null when it may go on at once.
 * - `noteMore(what)`: the running turn did more than its effect (reads the clock, ...).
 * - `changed()`: something the scheduler may be waiting on changed (the run stopped).
 * - `watch(globals)`: install what the scheduler needs on top of the virtual globals.
 * - `settle(inv, promise)`: wait for a handler's (or background work's) promise: an Outcome.
 * - `settleAtReturn(inv, promise)`: the same, answering the moment the promise settles, so
 *   nothing the handler left running moves between its return and the drive's next point.
 * - `alarm(due, fire)`: an engine alarm (the http caller's deadline): the cancel function, or
 *   null when the scheduler keeps none (a sequential run waits for every answer).
 */

import { SequentialScheduler } from "./sequential.mjs";
import { TurnScheduler } from "./turns.mjs";

/**
 * @typedef {{next: () => string | null, start: () => Promise<unknown>, wake?: () => number | null, auto?: boolean, settle?: () => boolean}} Source
 * @typedef {SequentialScheduler | TurnScheduler} Scheduler
 */

/**
 * The run's scheduler, by its bound on concurrent invocations.
 * @param {import("../run.mjs").Run} run @param {number} maxConcurrentInvocations
 * @returns {Scheduler}
 */
export function createScheduler(run, maxConcurrentInvocations) {
  return maxConcurrentInvocations > 1 ? new TurnScheduler(run, maxConcurrentInvocations) : new SequentialScheduler(run);
}
