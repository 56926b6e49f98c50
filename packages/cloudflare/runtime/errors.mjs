// @ts-check
/** Errors the control route tells apart, and what a run reports of an error the Worker threw. */

/** A failure that is the user's to fix (the Worker has no handler for the drive, ...). */
export class UserFacingError extends Error {
  name = "UserFacingError";
  /** @type {string | undefined} the word of the scenario the mistake is written at, when known (the Python side finds its line) */
  near;
}

/**
 * What a run reports of an error a handler threw and did not catch: its name, its message
 * and its stack as the isolate printed it. The host maps the stack through the bundle's
 * source map to the Worker's own line (`at`) and drops it (host/bundler.mjs `mapRunResult`),
 * so no bundle path leaves the host. Reading a thrown value never throws here: a getter or
 * a toString of the Worker's own that fails gives a placeholder.
 * @param {unknown} error @returns {{name: string, message: string, stack?: string}}
 */
export function uncaughtError(error) {
  /** @param {() => unknown} read @param {string} fallback */
  const safely = (read, fallback) => {
    try {
      const value = read();
      return value === undefined || value === null ? fallback : String(value);
    } catch {
      return fallback;
    }
  };
  if (error instanceof Error) {
    const stack = safely(() => error.stack, "");
    return { name: safely(() => error.name, "Error") || "Error", message: safely(() => error.message, ""), ...(stack ? { stack } : {}) };
  }
  // A value that is no Error (`throw undefined`, `throw "boom"`) is named as thrown: "thrown undefined", "thrown string: boom".
  if (error === undefined || error === null) return { name: `thrown ${error}`, message: "" };
  const kind = typeof error === "object" ? safely(() => error.constructor?.name, "Object") : typeof error;
  return { name: `thrown ${kind}`, message: safely(() => (typeof error === "string" ? error : JSON.stringify(error) ?? String(error)), "(unprintable value)") };
}

/** What SQLite says when the file system under its database is full. */
const STORAGE_FULL = /SQLITE_FULL|database or disk is full/;

/**
 * The user-facing error for a real failure that is the machine's limit, not the Worker's: the
 * file system under Miniflare's D1 storage (the host's folder on /dev/shm, else under TMPDIR)
 * is full. Null for any other error. A Worker must never see this as a D1 error of its own,
 * and it is no bug in Eutaxy: the check ends with it (exit 2), naming the limit.
 * @param {unknown} error @returns {UserFacingError | null}
 */
export function environmentLimit(error) {
  let text = "";
  try {
    text = error instanceof Error ? `${error.message}` : String(error);
  } catch {
    return null;
  }
  if (!STORAGE_FULL.test(text)) return null;
  return new UserFacingError(
    "the machine's storage for D1 is full (SQLite said: " + text.split("\n")[0].slice(0, 200) + "): Miniflare keeps each D1 database " +
    "in the Node host's folder on /dev/shm (under TMPDIR where /dev/shm is not writable), and that file system has no room left. " +
    "This is the environment's limit, not the Worker's: free space there (df -h /dev/shm), give the machine or container a larger " +
    "/dev/shm (docker run --shm-size=1g), or seed less data",
  );
}
