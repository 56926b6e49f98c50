// eutaxy/spec: the combinators a spec file is written with.
//
// A property is plain data holding the function by value and the arrow
// functions of its claim, so renaming the function cannot detach its spec and
// nothing is generated or evaluated from text: the reader reads the source
// through the TypeScript compiler, and the evaluator imports the spec file
// and calls these arrows on the inputs Python sends.

/** Marks an object as a property built here, so the evaluator can tell an
 * exported property from any other export of a spec file. */
export const PROPERTY = Symbol.for("eutaxy.spec.property");

/**
 * A claim over every input of `f`: `ensures` must hold wherever `when` holds.
 * @template {(...args: any[]) => any} F
 * @param {F} f the function under test, by value
 * @param {{ when?: (...args: Parameters<F>) => boolean,
 *           ensures: (...args: Parameters<F>) => boolean,
 *           sample?: { maxArrayLength?: number, maxStringLength?: number },
 *           timeoutMs?: number }} options
 */
export function forall(f, options) {
  if (typeof f !== "function") {
    throw new TypeError(`forall: the first argument must be the function under test, got ${typeof f}`);
  }
  if (options === null || typeof options !== "object" || typeof options.ensures !== "function") {
    throw new TypeError("forall: the second argument must be { ensures, when?, sample? } with ensures an arrow function");
  }
  if (options.timeoutMs !== undefined && !(Number.isFinite(options.timeoutMs) && options.timeoutMs > 0)) {
    throw new TypeError("forall: timeoutMs, when given, must be a positive number of milliseconds");
  }
  if (options.when !== undefined && typeof options.when !== "function") {
    throw new TypeError("forall: when, when given, must be an arrow function over the same parameters as ensures");
  }
  return Object.freeze({
    [PROPERTY]: true,
    kind: "forall",
    f,
    when: options.when,
    ensures: options.ensures,
    sample: options.sample === undefined ? undefined : Object.freeze({ ...options.sample }),
    timeoutMs: options.timeoutMs,
  });
}

/**
 * A claim that `f` terminates on every input. No sampling rung decides it;
 * an engine proves it.
 * @template {(...args: any[]) => any} F
 * @param {F} f
 */
export function total(f) {
  if (typeof f !== "function") {
    throw new TypeError(`total: the argument must be the function under test, got ${typeof f}`);
  }
  return Object.freeze({ [PROPERTY]: true, kind: "total", f });
}

/** True when `value` is a property built by forall or total. */
export function isProperty(value) {
  return value !== null && typeof value === "object" && value[PROPERTY] === true;
}
