// @ts-check
/**
 * The Worker's console output, kept per run in virtual time (the RunResult's `console`).
 *
 * For the length of a run `console.log`, `info`, `warn`, `error` and `debug` are replaced
 * (run.mjs installs them with the virtual globals and puts the real ones back after): each
 * call becomes one line `{invocation, ordinal, time, level, text}`, where `invocation` is
 * the invocation whose code logged (null outside every invocation), `ordinal` the last
 * effect point that invocation opened before the line (null before its first), and `time`
 * the virtual now. That is all a line is: it is not an effect point, so it takes no ordinal,
 * no fault and no clock tick, and the plans, the effect log and every verdict stay as they
 * were without it; a report shows the line under the point it followed.
 *
 * The text is the arguments formatted as one string, the same on every machine: a leading
 * format string takes `%s %d %i %f %o %O %j %c %%` as Node's console does; then strings
 * are joined as they are and every other value as `render` writes it (an Error by its name
 * and message, anything else by canonical JSON, a function or symbol by its kind). A run
 * keeps at most LINES_MAX lines of at most TEXT_CHARS_MAX characters each; the lines past
 * the cap are counted, and the result ends with one `capped` line saying how many.
 * Eutaxy's own messages use the real console (patch.mjs `realConsole`) and are never kept.
 */

import { toJson } from "./canonical.mjs";

/** The console methods a run captures, each its own level. */
export const LEVELS = Object.freeze(["log", "info", "warn", "error", "debug"]);

/** Lines one run keeps: enough for any trace a person reads, bounded for a Worker that logs in a loop. */
export const LINES_MAX = 200;

/** Characters one line keeps; the rest is cut with a note of how many. */
export const TEXT_CHARS_MAX = 2000;

/** The level of the one line that says how many lines the cap dropped. */
export const CAPPED_LEVEL = "capped";

/**
 * @typedef {{invocation: string | null, ordinal: number | null, time: number, level: string, text: string}} ConsoleLine
 */

/** One value as a log line writes it (not a format string's argument). @param {unknown} value */
export function render(value) {
  if (typeof value === "string") return value;
  if (value === undefined) return "undefined";
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "function") return `[function ${value.name || "anonymous"}]`;
  if (typeof value === "symbol") return value.toString();
  if (value instanceof Error) return errorText(value);
  if (typeof value === "number" && Object.is(value, -0)) return "-0";
  try {
    return toJson(value);
  } catch {
    return "[unrenderable]";
  }
}

/** @param {Error} error */
function errorText(error) {
  const name = typeof error.name === "string" && error.name ? error.name : "Error";
  const message = typeof error.message === "string" ? error.message : "";
  return message ? `${name}: ${message}` : name;
}

/**
 * The console call's arguments as one line of text.
 * @param {unknown[]} args
 */
export function formatArgs(args) {
  /** @type {string[]} */
  const parts = [];
  let rest = args;
  if (typeof args[0] === "string" && args[0].includes("%")) {
    let next = 1;
    const text = args[0].replace(/%[sdifoOjc%]/g, (spec) => {
      if (spec === "%%") return "%";
      if (next >= args.length) return spec;
      const value = args[next++];
      switch (spec) {
        case "%s":
          return typeof value === "string" ? value : render(value);
        case "%d":
        case "%i":
          return typeof value === "bigint" ? `${value}n` : String(spec === "%i" ? Math.trunc(Number(value)) : Number(value));
        case "%f":
          return String(Number(value));
        case "%c":
          return "";
        default:
          return render(value);
      }
    });
    parts.push(text);
    rest = args.slice(next);
  } else if (args.length > 0) {
    parts.push(render(args[0]));
    rest = args.slice(1);
  }
  for (const value of rest) parts.push(render(value));
  return parts.join(" ");
}

/** The lines one run kept, with the count the cap dropped. */
export class ConsoleCapture {
  /**
   * @param {{now: () => number, current: () => {id: string, nextOrdinal: number} | null}} hooks
   */
  constructor(hooks) {
    this.hooks = hooks;
    /** @type {ConsoleLine[]} at most LINES_MAX, in the order they were logged */
    this.lines = [];
    /** Lines logged after the cap was reached. */
    this.dropped = 0;
  }

  /** @param {string} level @param {unknown[]} args */
  write(level, args) {
    if (this.lines.length >= LINES_MAX) {
      this.dropped++;
      return;
    }
    const inv = this.hooks.current();
    let text;
    try {
      text = formatArgs(args);
    } catch {
      text = "[unrenderable]";
    }
    if (text.length > TEXT_CHARS_MAX) text = `${text.slice(0, TEXT_CHARS_MAX)}... (${text.length - TEXT_CHARS_MAX} more characters)`;
    this.lines.push({
      invocation: inv ? inv.id : null,
      ordinal: inv && inv.nextOrdinal > 0 ? inv.nextOrdinal - 1 : null,
      time: this.hooks.now(),
      level,
      text,
    });
  }

  /** The `[object, name, value]` triples that replace the console's methods for a run. */
  methods() {
    const con = /** @type {any} */ (globalThis.console);
    return LEVELS.map((level) => /** @type {[object, string, unknown]} */ ([con, level, (/** @type {unknown[]} */ ...args) => this.write(level, args)]));
  }

  /** The lines as the RunResult carries them: the kept lines, then the `capped` line if any were dropped. @returns {ConsoleLine[]} */
  result() {
    if (this.dropped === 0) return this.lines.slice();
    const capped = { invocation: null, ordinal: null, time: this.hooks.now(), level: CAPPED_LEVEL, text: `${this.dropped} more console lines were not kept (a run keeps ${LINES_MAX})` };
    return [...this.lines, capped];
  }
}
