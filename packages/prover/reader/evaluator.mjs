// The evaluator: imports a spec file (and through it the module under test)
// and evaluates its properties' `when` and `ensures` on the assignments
// Python sends. It decides nothing: every draw, count and verdict is Python's.
//
// Protocol: one JSON request per stdin line, one JSON answer per stdout line.
//   {"op": "load", "spec": "/abs/domain.props.ts"}
//     -> {"ok": true, "properties": {"name": "forall" | "total", ...}}
//   {"op": "eval", "property": "name", "assignments": [[arg, ...], ...]}
//     -> {"ok": true, "results": [{"kind": "true" | "false" | "skipped"}
//                                 | {"kind": "threw", "phase": "when" | "ensures", "name", "message"}
//                                 | {"kind": "malformed", "phase", "got"}]}
//   {"op": "regex", "pattern", "flags", "strings": [...]} -> {"ok": true, "results": [true, ...]}
// Any failure of the request itself answers {"ok": false, "error": "..."}.
//
// Environment: EUTAXY_SPEC_JS is eutaxy/spec's spec.js; `import "eutaxy/spec"`
// in a spec file resolves to it whatever the user's node_modules hold, so the
// evaluator and the reader see the same combinators. Relative imports written
// the TypeScript way (`./decide.js` for decide.ts, or no extension) resolve to
// the .ts file. Node strips the types itself (erasable syntax only).

import { registerHooks } from "node:module";
import { pathToFileURL } from "node:url";
import { createInterface } from "node:readline";
import { decode } from "./values.mjs";

const specJs = process.env.EUTAXY_SPEC_JS;
if (!specJs) {
  process.stderr.write("evaluator: EUTAXY_SPEC_JS must name eutaxy/spec's spec.js\n");
  process.exit(2);
}
const specUrl = pathToFileURL(specJs).href;

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === "eutaxy/spec") return { url: specUrl, shortCircuit: true };
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      if (!(specifier.startsWith("./") || specifier.startsWith("../")) || error?.code !== "ERR_MODULE_NOT_FOUND") throw error;
      const candidates = specifier.endsWith(".js")
        ? [specifier.slice(0, -3) + ".ts"]
        : [specifier + ".ts", specifier + "/index.ts"];
      for (const candidate of candidates) {
        try { return nextResolve(candidate, context); } catch { /* try the next spelling */ }
      }
      throw error;
    }
  },
});

// The protocol owns stdout. Whatever the code under test prints (console.log,
// process.stdout.write) goes to stderr, which Python keeps for diagnostics.
const writeAnswer = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);
for (const method of ["log", "info", "debug", "dir", "table"]) console[method] = console.error.bind(console);

const { isProperty } = await import(specUrl);

/** @type {Map<string, any>} */
let properties = new Map();

async function load(spec) {
  const namespace = await import(pathToFileURL(spec).href);
  properties = new Map();
  const kinds = {};
  for (const [name, value] of Object.entries(namespace)) {
    if (isProperty(value)) {
      properties.set(name, value);
      kinds[name] = value.kind;
    }
  }
  return { ok: true, properties: kinds };
}

function describe(error) {
  if (error instanceof Error) return { name: error.name, message: error.message };
  let message;
  try { message = String(error); } catch { message = "unprintable thrown value"; }
  return { name: typeof error, message };
}

function evaluateOne(property, encodedArgs) {
  if (property.when !== undefined) {
    let held;
    try {
      held = property.when(...encodedArgs.map(decode));
    } catch (error) {
      return { kind: "threw", phase: "when", ...describe(error) };
    }
    if (typeof held !== "boolean") return { kind: "malformed", phase: "when", got: typeof held };
    if (!held) return { kind: "skipped" };
  }
  let result;
  try {
    // A fresh copy for the claim: a function that mutates its input changes
    // neither what `when` saw nor what Python holds.
    result = property.ensures(...encodedArgs.map(decode));
  } catch (error) {
    return { kind: "threw", phase: "ensures", ...describe(error) };
  }
  if (typeof result !== "boolean") return { kind: "malformed", phase: "ensures", got: typeof result };
  return { kind: result ? "true" : "false" };
}

function evaluate(name, assignments) {
  const property = properties.get(name);
  if (!property) return { ok: false, error: `no property named ${name} in the loaded spec file` };
  if (property.kind !== "forall") return { ok: false, error: `${name} is a ${property.kind} property and has no claim to evaluate` };
  return { ok: true, results: assignments.map((args) => evaluateOne(property, args)) };
}

function regex(pattern, flags, strings) {
  const re = new RegExp(pattern, flags.replace(/[gy]/g, ""));
  return { ok: true, results: strings.map((s) => re.test(s)) };
}

async function handle(request) {
  switch (request.op) {
    case "load": return load(request.spec);
    case "eval": return evaluate(request.property, request.assignments);
    case "regex": return regex(request.pattern, request.flags, request.strings);
    default: return { ok: false, error: `unknown op ${JSON.stringify(request.op)}` };
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  let answer;
  try {
    answer = await handle(JSON.parse(line));
  } catch (error) {
    answer = { ok: false, error: String(error?.stack ?? error) };
  }
  writeAnswer(JSON.stringify(answer) + "\n");
}
