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
  const name = error !== null && typeof error === "object" ? safely(() => error.constructor?.name, "Object") : typeof error;
  return { name, message: safely(() => (typeof error === "string" ? error : JSON.stringify(error) ?? String(error)), "(unprintable value)") };
}
