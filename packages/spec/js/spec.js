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
 *           sample?: { maxArrayLength?: number, maxStringLength?: number, maxEnumerate?: number },
 *           timeoutMs?: number,
 *           inputs?: ReadonlyArray<object | undefined> }} options
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
  if (options.inputs !== undefined && !(Array.isArray(options.inputs) && options.inputs.every((g) => g === undefined || isGenerator(g)))) {
    throw new TypeError("forall: inputs, when given, must be an array of generators from gen (or undefined), one per parameter");
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
    inputs: options.inputs === undefined ? undefined : Object.freeze([...options.inputs]),
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

// ---- generators ------------------------------------------------------------
// A generator is plain data Python draws from (so shrinking still works); only
// `map` and `filter` hold a function, which the evaluator applies to the drawn
// value before `when` and `ensures` see it.

const GENERATOR = Symbol.for("eutaxy.spec.generator");

function generator(data) {
  return Object.freeze({ [GENERATOR]: true, ...data });
}

/** True when `value` was built by one of `gen`'s functions. */
export function isGenerator(value) {
  return value !== null && typeof value === "object" && value[GENERATOR] === true;
}

function need(ok, message) {
  if (!ok) throw new TypeError(`gen.${message}`);
}

function finite(n) {
  return typeof n === "number" && Number.isFinite(n);
}

export const gen = Object.freeze({
  /** Integers in [lo, hi]. */
  integer(lo, hi) {
    need(Number.isSafeInteger(lo) && Number.isSafeInteger(hi) && lo <= hi, "integer(lo, hi): two safe integers, lo <= hi");
    return generator({ gen: "integer", lo, hi });
  },
  /** Doubles in [lo, hi]. */
  number(lo, hi) {
    need(finite(lo) && finite(hi) && lo <= hi, "number(lo, hi): two finite numbers, lo <= hi");
    return generator({ gen: "number", lo, hi });
  },
  /** One of the given plain values (numbers, strings, booleans, null). */
  oneOf(...values) {
    need(values.length > 0 && values.every((v) => v === null || ["number", "string", "boolean"].includes(typeof v)),
      "oneOf(...values): at least one number, string, boolean or null");
    return generator({ gen: "oneOf", values });
  },
  /** Strings of at most maxLength UTF-16 units (and at least minLength). */
  string({ minLength = 0, maxLength = 8 } = {}) {
    need(Number.isSafeInteger(minLength) && Number.isSafeInteger(maxLength) && 0 <= minLength && minLength <= maxLength,
      "string({minLength, maxLength}): 0 <= minLength <= maxLength");
    return generator({ gen: "string", minLength, maxLength });
  },
  /** Arrays of `of`, of a length in [minLength, maxLength]. */
  array(of, { minLength = 0, maxLength = 16 } = {}) {
    need(isGenerator(of), "array(of): of must be a generator");
    need(Number.isSafeInteger(minLength) && Number.isSafeInteger(maxLength) && 0 <= minLength && minLength <= maxLength,
      "array(of, {minLength, maxLength}): 0 <= minLength <= maxLength");
    return generator({ gen: "array", of, minLength, maxLength });
  },
  /** Records whose fields are drawn from the given generators. */
  record(fields) {
    need(fields !== null && typeof fields === "object" && Object.values(fields).every(isGenerator), "record(fields): an object of generators");
    return generator({ gen: "record", fields: Object.freeze({ ...fields }) });
  },
  /** `fn` of a value drawn from `of` (drawn and shrunk as `of`'s value, then mapped). */
  map(of, fn) {
    need(isGenerator(of) && typeof fn === "function", "map(of, fn): a generator and a function");
    return generator({ gen: "map", of, fn });
  },
  /** Values of `of` for which `pred` holds; the others are outside the claim, as a false `when` is. */
  filter(of, pred) {
    need(isGenerator(of) && typeof pred === "function", "filter(of, pred): a generator and a function");
    return generator({ gen: "filter", of, pred });
  },
});
