// @ts-check
/**
 * Where the Worker's code made an effect: the call site an effect point records as `site`,
 * which the host maps to the Worker's own file, line and column (host/bundler.mjs
 * `StackMapper.site`) and sends on as `source`.
 *
 * The stack is read as V8's structured frames (Error.prepareStackTrace for the length of one
 * capture), so no stack text is formatted. The frames are kept innermost first, separated by
 * spaces: a frame of the bundle as `line:column`, a frame of another module (a module of a
 * no_bundle Worker, loaded beside the bundle) as `file:line:column` with the module's name as
 * workerd gives it, URI-encoded. Which of them is the Worker's and which is Eutaxy's runtime
 * only the bundle's source map and the module list tell, so the host decides. The capture
 * starts above the function that asks for it, so the effect point's own frames are left out.
 */

/** The frames read per capture: the binding proxy's few frames, then the Worker's call (and its callers, for a call from a library). */
const FRAMES_MAX = 12;

/** @type {string | null | undefined} the bundle's file name as V8 names it (read once; null: none) */
let bundleName;

/**
 * The structured frames above `below`, at most FRAMES_MAX; whatever the Worker set as
 * Error.prepareStackTrace and Error.stackTraceLimit is put back.
 * @param {Function} below @returns {any[]}
 */
function frames(below) {
  const E = /** @type {any} */ (Error);
  const prepare = E.prepareStackTrace;
  const limit = E.stackTraceLimit;
  /** @type {{stack?: unknown}} */
  const holder = {};
  try {
    E.prepareStackTrace = (/** @type {unknown} */ _error, /** @type {any[]} */ structured) => structured;
    E.stackTraceLimit = FRAMES_MAX;
    E.captureStackTrace(holder, below);
    const stack = holder.stack;
    return Array.isArray(stack) ? stack : [];
  } catch {
    return [];
  } finally {
    E.prepareStackTrace = prepare;
    E.stackTraceLimit = limit;
  }
}

/** The file this module was bundled into (the bundle), as V8 names it in a frame. */
function ownFile() {
  if (bundleName === undefined) bundleName = frames(ownFile)[0]?.getFileName?.() ?? null;
  return bundleName;
}

/**
 * The positions of the stack above `below`, innermost first (`"812:17 worker%2Findex.js:6:80
 * 790:5"`), or undefined when no frame has a file. Positions are V8's: line and column from 1.
 * @param {Function} below the function whose caller is the first frame kept
 * @returns {string | undefined}
 */
export function callSite(below) {
  const bundle = ownFile();
  if (!bundle) return undefined;
  const positions = [];
  for (const frame of frames(below)) {
    const file = frame.getFileName?.();
    const line = frame.getLineNumber?.();
    const column = frame.getColumnNumber?.();
    if (typeof file !== "string" || !file || typeof line !== "number" || typeof column !== "number") continue;
    positions.push(file === bundle ? `${line}:${column}` : `${encodeURIComponent(file)}:${line}:${column}`);
  }
  return positions.length ? positions.join(" ") : undefined;
}
