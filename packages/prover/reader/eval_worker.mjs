// The evaluator's worker thread: imports the bundled spec file and evaluates
// its properties. It stores the index of the assignment it is on (and the
// phase: 0 when, 1 ensures, 2 regex) in the shared `progress` words before
// each evaluation, so the supervising thread (evaluator.mjs) can tell a
// runaway call from a slow batch and end this thread.

import { parentPort, workerData } from "node:worker_threads";

const { bundle, specJs, specValues, progress } = workerData;
// The value encoding is eutaxy/spec's (js/values.mjs), which ships apart from this folder.
const { decode } = await import(specValues);

// The protocol owns the supervisor's stdout; this thread's stdout goes to stderr.
for (const method of ["log", "info", "debug", "dir", "table"]) console[method] = console.error.bind(console);

/** @type {Map<string, any>} */
const properties = new Map();

function describe(error) {
  if (error instanceof Error) return { name: error.name, message: error.message };
  let message;
  try { message = String(error); } catch { message = "unprintable thrown value"; }
  return { name: typeof error, message };
}

/** The whole of an import failure: its name, every line of its message, and the frames in the user's files. */
function importFailure(error) {
  if (!(error instanceof Error)) return describe(error).message;
  const frames = String(error.stack ?? "").split("\n").slice(1)
    .filter((line) => /^\s+at /.test(line) && !line.includes("node:") && !line.includes("eval_worker.mjs"));
  return [`${error.name}: ${error.message}`, ...frames].join("\n");
}

async function load() {
  Atomics.store(progress, 0, 0); // the import is the one evaluation of a load
  const { isProperty } = await import(specJs);
  let namespace;
  try {
    namespace = await import(bundle);
  } catch (error) {
    return { ok: false, error: importFailure(error) };
  }
  const kinds = {};
  const generators = {};
  for (const [name, value] of Object.entries(namespace)) {
    if (isProperty(value)) {
      properties.set(name, value);
      kinds[name] = value.kind;
      if (value.inputs) generators[name] = value.inputs.map((g) => (g === undefined ? null : describeGenerator(g)));
    }
  }
  return { ok: true, properties: kinds, generators };
}

/** A generator as plain data for Python: its functions are left out (this thread applies them). */
function describeGenerator(g) {
  const { gen, fn, pred, of, fields, ...rest } = g;
  const out = { gen, ...rest };
  if (of) out.of = describeGenerator(of);
  if (fields) out.fields = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, describeGenerator(v)]));
  return out;
}

const FILTERED = Symbol("filtered");

/** The value `when` and `ensures` see: the drawn one with the generator's map and filter applied. */
function shaped(g, value) {
  switch (g?.gen) {
    case "map": return g.fn(shaped(g.of, value));
    case "filter": {
      const v = shaped(g.of, value);
      if (!g.pred(v)) throw FILTERED;
      return v;
    }
    case "array": return Array.isArray(value) ? value.map((x) => shaped(g.of, x)) : value;
    case "record": {
      if (value === null || typeof value !== "object") return value;
      const out = { ...value };
      for (const [k, sub] of Object.entries(g.fields)) if (k in out) out[k] = shaped(sub, out[k]);
      return out;
    }
    default: return value;
  }
}

function argsOf(property, encodedArgs) {
  const args = encodedArgs.map(decode);
  if (!property.inputs) return args;
  return args.map((v, i) => (property.inputs[i] ? shaped(property.inputs[i], v) : v));
}

function evaluateOne(property, encodedArgs) {
  if (property.inputs) {
    // A generator's filter is part of the precondition; its map is the caller's.
    Atomics.store(progress, 1, 0);
    try {
      argsOf(property, encodedArgs);
    } catch (error) {
      if (error === FILTERED) return { kind: "skipped" };
      return { kind: "threw", phase: "when", ...describe(error) };
    }
  }
  if (property.when !== undefined) {
    const when = runArrow("when", property.when, property, encodedArgs);
    if (when.ended) return when.ended;
    if (!when.held) return { kind: "skipped" };
  }
  const ensures = runArrow("ensures", property.ensures, property, encodedArgs);
  if (ensures.ended) return ensures.ended;
  return { kind: ensures.held ? "true" : "false" };
}

/** The `progress` phase word of each arrow (the header's 0 when, 1 ensures). */
const PHASE_WORDS = { when: 0, ensures: 1 };

/**
 * Runs the property's `when` or `ensures` arrow (`phase`): `{held}` with its boolean, or
 * `{ended}` with the outcome that ends the evaluation (the arrow threw, or gave no boolean).
 */
function runArrow(phase, arrow, property, encodedArgs) {
  Atomics.store(progress, 1, PHASE_WORDS[phase]);
  let answer;
  try {
    // A fresh copy for each arrow: a function that mutates its input changes
    // neither what `when` saw nor what Python holds.
    answer = arrow(...argsOf(property, encodedArgs));
  } catch (error) {
    return { ended: { kind: "threw", phase, ...describe(error) } };
  }
  if (typeof answer !== "boolean") return { ended: { kind: "malformed", phase, got: typeof answer } };
  return { held: answer };
}

function evaluate(name, assignments) {
  const property = properties.get(name);
  if (!property) return { ok: false, error: `no property named ${name} in the loaded spec file` };
  if (property.kind !== "forall") return { ok: false, error: `${name} is a ${property.kind} property and has no claim to evaluate` };
  const results = new Array(assignments.length);
  for (let i = 0; i < assignments.length; i++) {
    Atomics.store(progress, 0, i);
    results[i] = evaluateOne(property, assignments[i]);
  }
  return { ok: true, results };
}

function regex(pattern, flags, strings) {
  const re = new RegExp(pattern, flags.replace(/[gy]/g, ""));
  Atomics.store(progress, 1, 2);
  const results = new Array(strings.length);
  for (let i = 0; i < strings.length; i++) {
    Atomics.store(progress, 0, i);
    results[i] = re.test(strings[i]);
  }
  return { ok: true, results };
}

async function handle(request) {
  switch (request.op) {
    case "load": return load();
    case "eval": return evaluate(request.property, request.assignments);
    case "regex": return regex(request.pattern, request.flags, request.strings);
    default: return { ok: false, error: `unknown op ${JSON.stringify(request.op)}` };
  }
}

parentPort.on("message", async (request) => {
  let answer;
  try {
    answer = await handle(request);
  } catch (error) {
    answer = { ok: false, error: String(error?.stack ?? error) };
  }
  parentPort.postMessage(answer);
});
