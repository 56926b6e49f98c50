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

/** A real zero timer: the one way to let the isolate's event loop turn once. */
export function realTurn() {
  return new Promise((resolve) => originals.setTimeout.call(globalThis, resolve, 0));
}

/** A real timer, for budgets; returns a cancel function. @param {number} ms @param {() => void} fn */
export function realTimer(ms, fn) {
  const handle = originals.setTimeout.call(globalThis, fn, ms);
  return () => originals.clearTimeout.call(globalThis, handle);
}
