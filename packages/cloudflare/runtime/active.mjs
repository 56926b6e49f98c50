// @ts-check
/**
 * The run in progress, for code that is reached without one in hand (the global traps,
 * the sockets shim). Runs never overlap: the control route performs one at a time.
 */

/** @type {{run: import("./run.mjs").Run | null}} */
export const active = { run: null };
