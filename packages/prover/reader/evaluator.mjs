// The evaluator: bundles a spec file (and through it the module under test)
// with the pinned esbuild, imports it in a worker thread, and evaluates its
// properties' `when` and `ensures` on the assignments Python sends. It decides
// nothing: every draw, count and verdict is Python's.
//
// Protocol: one JSON request per stdin line, one JSON answer per stdout line.
//   {"op": "load", "spec": "/abs/domain.props.ts", "limitMs": 5000}
//     -> {"ok": true, "properties": {"name": "forall" | "total", ...}, "imports": ["/abs/domain.ts", ...],
//         "generators": {"name": [generator data | null, ...]}}   (for properties with `inputs`)
//   {"op": "eval", "property": "name", "assignments": [[arg, ...], ...], "limitMs": 3000}
//     -> {"ok": true, "results": [{"kind": "true" | "false" | "skipped"}
//                                 | {"kind": "threw", "phase": "when" | "ensures", "name", "message"}
//                                 | {"kind": "malformed", "phase", "got"}
//                                 | {"kind": "timeout", "phase", "ms"}
//                                 | {"kind": "died", "phase", "message"}]}
//   {"op": "regex", "pattern", "flags", "strings": [...], "limitMs"} -> {"ok": true, "results": [true, ...]}
//   {"op": "words", "state": [s0, s1, s2, s3], "count": n}
//     -> {"ok": true, "words": base64 of n little-endian uint32s, "state": [s0, s1, s2, s3] after them}
//     (the next n words of that xoshiro128** state, as eutaxy.core.prng gives them: Python's
//     draws take their words from here in bulk, since generating them is slow in Python)
// Any failure of the request itself answers {"ok": false, "error": "..."}.
//
// Every evaluation is bounded. The worker stores the index of the assignment
// it is on in a shared word; this thread watches it, and one that has not
// moved for `limitMs` of real time is a runaway call: the worker is ended,
// the answer carries the results before it (evaluated again on a fresh
// worker) and a `timeout` result for it, and nothing after it. A worker that
// dies on an input (process.exit, out of memory) answers `died` the same way.
// Either way the next request finds a fresh worker with the spec loaded.
//
// Loading is one esbuild build of the spec file, bundled with every relative
// and aliased import as the user's esbuild or tsc build resolves them: enums,
// namespaces and parameter properties, directory imports (`../types` for
// `../types/index.ts`), `.js` for `.ts`, and tsconfig `paths`. `eutaxy/spec`
// is mapped to EUTAXY_SPEC_JS whatever the user's node_modules hold, so the
// reader and the evaluator see the same combinators. Packages from
// node_modules are bundled too, as a Worker's build bundles them; Node's
// built-ins stay imports.
//
// Environment: EUTAXY_SPEC_JS (eutaxy/spec's spec.js), EUTAXY_SPEC_VALUES
// (eutaxy/spec's values.mjs, the value encoding the worker decodes arguments
// with), EUTAXY_ESBUILD (the pinned esbuild package folder).

import { Worker } from "node:worker_threads";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const specJs = process.env.EUTAXY_SPEC_JS;
const specValues = process.env.EUTAXY_SPEC_VALUES;
const esbuildDir = process.env.EUTAXY_ESBUILD;
if (!specJs || !specValues || !esbuildDir) {
  process.stderr.write("evaluator: EUTAXY_SPEC_JS, EUTAXY_SPEC_VALUES and EUTAXY_ESBUILD must name spec.js, values.mjs and the esbuild package\n");
  process.exit(2);
}
const esbuild = createRequire(path.join(esbuildDir, "package.json"))(esbuildDir);
const WORKER = new URL("./eval_worker.mjs", import.meta.url);
const DEFAULT_LIMIT_MS = 5000;
const LOAD_LIMIT_MS = 30000;

const scratch = mkdtempSync(path.join(tmpdir(), "eutaxy-eval-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
// Ctrl-C reaches every process of the terminal's group, this one too: without a handler Node
// would die at once and skip the exit handler above, leaving the scratch folder behind.
for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]]) {
  process.on(signal, () => process.exit(code));
}

// ---- loading --------------------------------------------------------------

/** Resolve `eutaxy/spec` to the shipped module. */
const specPlugin = {
  name: "eutaxy-spec",
  setup(build) {
    build.onResolve({ filter: /^eutaxy\/spec$/ }, () => ({ path: path.resolve(specJs) }));
  },
};

/** One esbuild build of the spec file: the bundle's path and the user files it holds. */
async function bundle(spec) {
  const outfile = path.join(scratch, `bundle-${Date.now()}-${Math.random().toString(36).slice(2)}.mjs`);
  let result;
  try {
    result = await esbuild.build({
      entryPoints: [spec], bundle: true, format: "esm", platform: "node", target: "es2022",
      outfile, write: true, metafile: true, sourcemap: "inline", sourcesContent: false,
      plugins: [specPlugin], logLevel: "silent", absWorkingDir: path.dirname(spec),
      // Bundled CommonJS packages may require Node's built-ins.
      banner: { js: 'import { createRequire as __eutaxyRequire } from "node:module"; const require = __eutaxyRequire(import.meta.url);' },
    });
  } catch (error) {
    const errors = error?.errors ?? [];
    const lines = errors.map((e) => {
      const at = e.location ? `${e.location.file}:${e.location.line}:${e.location.column}: ` : "";
      const notes = (e.notes ?? []).map((n) => `\n  ${n.text}`).join("");
      return `${at}${e.text}${notes}`;
    });
    throw new LoadFailure(lines.length ? lines.join("\n") : String(error?.message ?? error));
  }
  const base = path.dirname(spec);
  const imports = Object.keys(result.metafile.inputs)
    .map((p) => path.resolve(base, p.replace(/^[a-z-]+:/, "")))
    .filter((p) => p !== path.resolve(specJs) && p !== path.resolve(spec) && !p.split(path.sep).includes("node_modules"))
    .sort();
  return { outfile, imports };
}

class LoadFailure extends Error {}

// ---- the worker and its watchdog -----------------------------------------

let loaded = null; // { outfile, imports, properties, generators }
let worker = null; // { thread, progress, pending, dead }

/** Start a worker on the bundle; resolves with its property list, or rejects with why it did not import. */
function startWorker(outfile) {
  const progress = new Int32Array(new SharedArrayBuffer(8));
  const thread = new Worker(WORKER, {
    workerData: { bundle: pathToFileURL(outfile).href, specJs: pathToFileURL(specJs).href, specValues: pathToFileURL(specValues).href, progress },
    stdout: true, stderr: false, execArgv: ["--enable-source-maps"],
  });
  // What the code under test prints goes to stderr, never into the answers.
  thread.stdout.pipe(process.stderr);
  const current = { thread, progress, pending: null, dead: null };
  thread.on("message", (message) => {
    const pending = current.pending;
    current.pending = null;
    pending?.resolve(message);
  });
  const die = (why) => {
    if (current.dead) return;
    current.dead = why;
    const pending = current.pending;
    current.pending = null;
    pending?.reject(new WorkerDied(why));
  };
  thread.on("error", (error) => die(describeError(error)));
  thread.on("exit", (code) => die(`the code under test ended the evaluator (exit code ${code})`));
  return current;
}

class WorkerDied extends Error {}
class Timeout extends Error {}

/** Send one message to the worker and wait for its answer, ending it when an evaluation outruns the limit. */
function ask(current, message, limitMs) {
  return new Promise((resolve, reject) => {
    if (current.dead) { reject(new WorkerDied(current.dead)); return; }
    Atomics.store(current.progress, 0, -1);
    let seen = -2;
    let since = performance.now();
    const tick = Math.max(5, Math.min(100, Math.floor(limitMs / 10)));
    const timer = setInterval(() => {
      const index = Atomics.load(current.progress, 0);
      const now = performance.now();
      if (index !== seen) { seen = index; since = now; return; }
      // Before the worker takes the request up (index -1) nothing of the user's runs
      // but an import, so only a stuck worker waits past the load limit there.
      if (now - since >= (index < 0 ? Math.max(limitMs, LOAD_LIMIT_MS) : limitMs)) {
        clearInterval(timer);
        current.pending = null;
        current.dead = "ended after a runaway evaluation";
        current.thread.terminate();
        reject(new Timeout(String(index), { cause: Atomics.load(current.progress, 1) }));
      }
    }, tick);
    current.pending = {
      resolve: (value) => { clearInterval(timer); resolve(value); },
      reject: (error) => { clearInterval(timer); error.index = Atomics.load(current.progress, 0); error.phase = Atomics.load(current.progress, 1); reject(error); },
    };
    current.thread.postMessage(message);
  });
}

/** The live worker, started on the loaded bundle when the last one was ended (its import bounded by `limitMs`). */
async function freshWorker(limitMs) {
  if (worker && !worker.dead) return worker;
  const current = startWorker(loaded.outfile);
  let answer;
  try {
    answer = await ask(current, { op: "load" }, limitMs);
  } catch (error) {
    if (error instanceof Timeout) throw new LoadFailure(`the spec file did not finish importing within ${limitMs} ms`);
    throw new LoadFailure(error.message);
  }
  if (!answer.ok) {
    await current.thread.terminate();
    throw new LoadFailure(answer.error);
  }
  worker = current;
  loaded.properties = answer.properties;
  loaded.generators = answer.generators;
  return worker;
}

async function load(spec, limitMs) {
  if (worker) await worker.thread.terminate();
  worker = null;
  loaded = null;
  loaded = await bundle(spec);
  await freshWorker(limitMs);
  return { ok: true, properties: loaded.properties, generators: loaded.generators, imports: loaded.imports };
}

const PHASES = ["when", "ensures", "regex"];

/**
 * Evaluate a batch; on a runaway or a death at index i, answer the results before i
 * (from a fresh worker) and one result for i, and start nothing after it.
 */
async function evaluate(request, limitMs) {
  if (!loaded) return { ok: false, error: "no spec file is loaded" };
  // A restart imports the bundle again: that import has the load limit, not one evaluation's.
  const current = await freshWorker(Math.max(limitMs, LOAD_LIMIT_MS));
  try {
    return await ask(current, request, limitMs);
  } catch (error) {
    if (!(error instanceof Timeout || error instanceof WorkerDied)) throw error;
    const index = error instanceof Timeout ? Number(error.message) : error.index;
    const phase = PHASES[(error instanceof Timeout ? error.cause : error.phase)] ?? "ensures";
    const stuck = error instanceof Timeout
      ? { kind: "timeout", phase, ms: limitMs }
      : { kind: "died", phase, message: error.message };
    if (index < 0) return { ok: false, error: `the evaluator stopped before evaluating anything: ${error.message}` };
    const items = request.op === "regex" ? request.strings : request.assignments;
    let before = [];
    if (index > 0) {
      const again = await evaluate({ ...request, [request.op === "regex" ? "strings" : "assignments"]: items.slice(0, index) }, limitMs);
      if (!again.ok) return again;
      before = again.results;
      if (before.length < index) return again; // the prefix did not finish the second time either
    }
    return { ok: true, results: [...before, request.op === "regex" ? false : stuck], stopped: stuck };
  }
}

// ---- words for Python's draws ---------------------------------------------

const MAX_WORDS = 1 << 20;

function rotl(value, shift) {
  return ((value << shift) | (value >>> (32 - shift))) >>> 0;
}

/** The next `count` words of xoshiro128** 1.1 from `state`, and the state after them. */
function words(state, count) {
  if (!Array.isArray(state) || state.length !== 4 || !state.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffffffff)
      || state.every((w) => w === 0)) {
    return { ok: false, error: `words needs four uint32 state words, not all zero; got ${JSON.stringify(state)}` };
  }
  if (!Number.isInteger(count) || count <= 0 || count > MAX_WORDS) {
    return { ok: false, error: `words needs a count from 1 to ${MAX_WORDS}, got ${JSON.stringify(count)}` };
  }
  let [s0, s1, s2, s3] = state;
  const out = new DataView(new ArrayBuffer(4 * count));
  for (let i = 0; i < count; i++) {
    out.setUint32(4 * i, Math.imul(rotl(Math.imul(s1, 5) >>> 0, 7), 9) >>> 0, true);
    const t = (s1 << 9) >>> 0;
    s2 = (s2 ^ s0) >>> 0;
    s3 = (s3 ^ s1) >>> 0;
    s1 = (s1 ^ s2) >>> 0;
    s0 = (s0 ^ s3) >>> 0;
    s2 = (s2 ^ t) >>> 0;
    s3 = rotl(s3, 11);
  }
  return { ok: true, words: Buffer.from(out.buffer).toString("base64"), state: [s0, s1, s2, s3] };
}

function describeError(error) {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  try { return String(error); } catch { return "an unprintable error"; }
}

async function handle(request) {
  const limitMs = Number.isFinite(request.limitMs) && request.limitMs > 0 ? request.limitMs : DEFAULT_LIMIT_MS;
  switch (request.op) {
    case "load": return load(path.resolve(request.spec), limitMs);
    case "eval":
    case "regex": return evaluate(request, limitMs);
    case "words": return words(request.state, request.count);
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
    answer = { ok: false, error: error instanceof LoadFailure ? error.message : String(error?.stack ?? error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
if (worker) await worker.thread.terminate();
