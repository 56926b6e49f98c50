// @ts-check
/**
 * The patch module: the first module of the bundle, evaluated before the user's Worker.
 *
 * It captures the real globals while nothing else has touched them, so the runtime keeps
 * working with the real clock, timers and randomness whatever a run installs, and so
 * restoring after a run puts back exactly what the isolate started with (even if the
 * user's module replaced a global at load). ES module order guarantees the capture runs
 * first: the bundle's entry imports this module before the user's entry.
 *
 * Nothing is virtualised here; the virtual globals are installed for the length of a run
 * only (see globals.mjs), so outside a run the isolate is untouched. The one exception is
 * the load-time watch below: WeakRef and FinalizationRegistry made while the Worker's module
 * evaluates are noted (their objects stay real), and entry.mjs puts the real constructors
 * back once the module has run.
 */

const g = /** @type {any} */ (globalThis);

/** The real globals, captured at isolate start. */
export const originals = Object.freeze({
  Date: g.Date,
  dateNow: g.Date.now,
  mathRandom: g.Math.random,
  crypto: g.crypto,
  randomUUID: g.crypto?.randomUUID,
  getRandomValues: g.crypto?.getRandomValues,
  subtleDigest: g.crypto?.subtle?.digest,
  schedulerWait: g.scheduler?.wait,
  performance: g.performance,
  performanceNow: g.performance?.now,
  setTimeout: g.setTimeout,
  clearTimeout: g.clearTimeout,
  setInterval: g.setInterval,
  clearInterval: g.clearInterval,
  fetch: g.fetch,
  caches: g.caches,
  WeakRef: g.WeakRef,
  FinalizationRegistry: g.FinalizationRegistry,
  structuredClone: g.structuredClone,
});

/**
 * The real console, bound at isolate start: Eutaxy's own messages (a handler that threw, a
 * timer callback that threw) go here, so a run's console capture (console.mjs) keeps only
 * the Worker's lines.
 */
export const realConsole = Object.freeze({
  log: g.console.log.bind(g.console),
  error: g.console.error.bind(g.console),
});

/** What the Worker's module made at load that no run can virtualise, by constructor name. */
export const usedAtLoad = /** @type {string[]} */ ([]);

for (const name of /** @type {const} */ (["WeakRef", "FinalizationRegistry"])) {
  const Real = originals[name];
  if (!Real) continue;
  /** @param {unknown[]} args */
  function Watched(...args) {
    if (!usedAtLoad.includes(name)) usedAtLoad.push(name);
    return Reflect.construct(Real, args, new.target ?? Real);
  }
  Watched.prototype = Real.prototype;
  g[name] = Watched;
}

/** End the load-time watch (entry.mjs, after the Worker's module ran): the real constructors again. */
export function endLoadWatch() {
  g.WeakRef = originals.WeakRef;
  g.FinalizationRegistry = originals.FinalizationRegistry;
}

/**
 * The real zero timers still pending, by the owner that asked for them (an invocation), so
 * the owner's end clears them: workerd counts a timer that has not fired as active, at most
 * 10,000 per request (one run), and a turn a settled invocation's wait left behind may not
 * fire before the run ends (while I/O keeps the isolate busy), so one per invocation would
 * end a run of 10,000 invocations with QuotaExceededError.
 * @type {WeakMap<object, Set<unknown>>}
 */
const pendingTurns = new WeakMap();

/**
 * A real zero timer: the one way to let the isolate's event loop turn once. An `owner` that
 * ends calls `clearTurns(owner)`; a turn it cleared never resolves (its waiter is gone).
 * @param {object} [owner]
 */
export function realTurn(owner) {
  return new Promise((resolve) => {
    /** @type {unknown} */
    let handle = null;
    handle = originals.setTimeout.call(globalThis, () => {
      if (owner) pendingTurns.get(owner)?.delete(handle);
      resolve(undefined);
    }, 0);
    if (!owner) return;
    let pending = pendingTurns.get(owner);
    if (!pending) pendingTurns.set(owner, (pending = new Set()));
    pending.add(handle);
  });
}

/** Clear the zero timers `owner` left pending (realTurn). @param {object} owner */
export function clearTurns(owner) {
  const pending = pendingTurns.get(owner);
  if (!pending) return;
  pendingTurns.delete(owner);
  for (const handle of pending) originals.clearTimeout.call(globalThis, handle);
}

/** A real timer, for budgets; returns a cancel function. @param {number} ms @param {() => void} fn */
export function realTimer(ms, fn) {
  const handle = originals.setTimeout.call(globalThis, fn, ms);
  return () => originals.clearTimeout.call(globalThis, handle);
}
