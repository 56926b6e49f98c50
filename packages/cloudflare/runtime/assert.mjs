// @ts-check
/**
 * Internal invariants: `assert(condition, message)` where the state lives.
 *
 * A failed assert is Eutaxy's own bug, never the user's: it throws an EutaxyInternalError
 * and notes it on the run in progress, so the run fails as an internal error (the control
 * route answers 500 with `user: false`, the host reports it, the CLI exits 3 with the
 * message) even when the assert fired inside a call the Worker's code caught.
 */

import { active } from "./active.mjs";

/** Eutaxy broke one of its own invariants. */
export class EutaxyInternalError extends Error {
  name = "EutaxyInternalError";
}

/**
 * @param {unknown} condition @param {string | (() => string)} message what must hold (a sentence)
 * @returns {asserts condition}
 */
export function assert(condition, message) {
  if (condition) return;
  const error = new EutaxyInternalError(`eutaxy internal error: ${typeof message === "function" ? message() : message}`);
  const run = active.run;
  if (run && !run.failure) run.failure = error;
  throw error;
}
