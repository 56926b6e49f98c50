// @ts-check
/**
 * The Node host: one process per checked Worker, owning one Miniflare instance that is
 * kept for every run of a check. It speaks JSON lines: one request per stdin line, one
 * answer per stdout line, everything else (its own log, Miniflare's, the Worker's console)
 * on stderr.
 *
 * A load replaces the Worker loaded before, if any (its workerd is stopped, its bundle removed),
 * so one host serves one Worker after another (host.py's pool reuses hosts so). Its answer's
 * `start` says how the start went: the bundle `built` or `cached` (host/bundle_cache.mjs) and
 * the milliseconds of bundling and of workerd's start, for benchmarks; no verdict reads it.
 *
 * Requests, answered in order, each answer carrying the request's id:
 *   {"id", "op": "load", "worker": {...}, "setup": [...]}  ->  {"id", "ok": true, "result": {"compatibilityDate": {asked, used, newest}, "start": {...}}}
 *   {"id", "op": "run", "plan": RunPlan}                  ->  {"id", "ok": true, "result": RunResult}
 *   {"id", "op": "probe"}                                 ->  {"id", "ok": true, "result": {"patched": [...]}}
 *   {"id", "op": "raw_run", "request": RawRequest}        ->  {"id", "ok": true, "result": RawResult} (raw.mjs)
 *   {"op": "close"}                                       ->  {"id", "ok": true} when an id was given; then exit
 * A failure answers {"id", "ok": false, "error": "...", "user": bool, "near"?, "missingClasses"?}
 * (`user` when the Worker or scenario is at fault rather than Eutaxy; `near` the scenario's word
 * it is written at, when the runtime knows one, so the Python side can name its line;
 * `missingClasses` the Durable Object classes the config binds and the entry does not export,
 * whose config lines the Python side names).
 *
 * A run is one HTTP request over a direct socket to the bundle's control entrypoint, which
 * performs the whole run inside the isolate and answers the RunResult JSON, passed through
 * to stdout unparsed unless it names a bundle position or an uncaught error's stack, which
 * the bundle's StackMapper rewrites in the Worker's own terms: one round trip per run.
 *
 * The host dies with its parent: stdin closing, the parent pid changing (polled) and
 * SIGTERM/SIGINT/SIGHUP all dispose Miniflare (which stops its workerd) and exit. The
 * toolchain's node_modules comes from EUTAXY_NODE_MODULES or `--node-modules DIR`.
 *
 * This file is the line server; each other job is one module of host/: toolchain.mjs
 * (miniflare and esbuild), workdir.mjs (the work directory), load.mjs (the load message
 * read), bundler.mjs (esbuild), miniflare.mjs (the workerd lifecycle and control requests).
 */

import path from "node:path";
import readline from "node:readline";

import { StackMapper, bundle, bundleAlone } from "./host/bundler.mjs";
import { readLoad } from "./host/load.mjs";
import { Isolate } from "./host/miniflare.mjs";
import { UserError, log } from "./host/toolchain.mjs";
import { openWorkDir } from "./host/workdir.mjs";

/** How often the host checks that its parent is still there. */
const PARENT_POLL_MS = 500;
/** The least real time a run's isolate may go without progress before the watchdog stops it. */
const STUCK_FLOOR_MS = 5000;

/**
 * How long a run may go without progress: past the effect hang threshold (`effectHangMs`,
 * after which the runtime itself ends a run waiting on a hung effect) by the threshold
 * again, and never less than the floor, so a slow machine is not mistaken for a loop. A plan
 * without it fails in the runtime (an internal error) before this matters. @param {any} plan
 */
function stuckMs(plan) {
  const hang = Number(plan?.scenario?.bounds?.effectHangMs) || 0;
  return hang + Math.max(hang, STUCK_FLOOR_MS);
}

const workDir = openWorkDir();
const isolate = new Isolate();
/** @type {StackMapper | null} the loaded bundle's: every run result passes through it, so no host path leaves */
let mapper = null;
// Whatever ends the host (an uncaught error too), its work directory goes with it.
process.on("exit", () => workDir.remove());
// Python gone mid-run: the answer's write fails (EPIPE); stop as when stdin closes.
process.stdout.on("error", () => void shutdown("stdout closed", 1));

/** @param {any} message */
async function load(message) {
  const started = performance.now();
  const loaded = readLoad(message);
  const scriptPath = path.join(workDir.dir, "worker.bundle.mjs");
  const { modules, cached } = await bundle(loaded.entry, scriptPath, loaded.specs, loaded.objectClasses, {
    define: loaded.define, alias: loaded.alias, kindModules: loaded.kindModules, rules: loaded.rules, tsconfig: loaded.tsconfig,
    compatibilityDate: loaded.compatibilityDate, compatibilityFlags: loaded.compatibilityFlags, noBundle: loaded.noBundle, root: loaded.root,
    callees: loaded.calleeEntries,
  });
  // Each callee alone too, for the differential runner's raw side (a Worker of its own beside this one).
  const rawCallees = [];
  for (const [index, callee] of loaded.rawCallees.entries()) {
    const calleePath = path.join(workDir.dir, `callee-${index}.bundle.mjs`);
    await bundleAlone(callee.entry, calleePath, { compatibilityDate: loaded.compatibilityDate, compatibilityFlags: loaded.compatibilityFlags });
    rawCallees.push({ ...callee, scriptPath: calleePath });
  }
  const loadedMapper = new StackMapper(scriptPath, loaded.root, loaded.noBundle?.baseDir ?? null);
  mapper = loadedMapper;
  const bundled = performance.now();
  // The source map is read while workerd starts, not on the first run's answer.
  await isolate.start({ ...loaded, scriptPath, modulesRoot: workDir.dir, modules, rawCallees }, () => void loadedMapper.map);
  const ready = performance.now();
  log(`loaded ${loaded.entry}: ${cached ? "bundle from the cache" : "bundled"} in ${(bundled - started).toFixed(0)} ms, workerd ready in ${(ready - bundled).toFixed(0)} ms`);
  // How the start went, for benchmarks (bench/cloudflare_start.py); no verdict reads it.
  const start = { bundle: cached ? "cached" : "built", bundleMs: Math.round(bundled - started), workerdMs: Math.round(ready - bundled) };
  return { compatibilityDate: loaded.dates, start };
}

/** @param {unknown} id @param {string} [resultJson] */
function answerOk(id, resultJson) {
  const head = `{"id":${JSON.stringify(id ?? null)},"ok":true`;
  process.stdout.write(resultJson === undefined ? `${head}}\n` : `${head},"result":${resultJson}}\n`);
}

/** @param {unknown} id @param {unknown} error */
function answerError(id, error) {
  const user = error instanceof UserError;
  const text = error instanceof Error ? error.message : String(error);
  if (!user) log(`internal error: ${error instanceof Error ? error.stack : text}`);
  const near = user ? error.near : undefined;
  const missingClasses = user ? error.missingClasses : undefined;
  process.stdout.write(JSON.stringify({ id: id ?? null, ok: false, error: text, user, ...(near ? { near } : {}), ...(missingClasses ? { missingClasses } : {}) }) + "\n");
}

let closing = false;

/** Dispose Miniflare (stopping workerd), remove the work directory and exit. @param {string} why @param {number} [code] */
async function shutdown(why, code = 0) {
  if (closing) return;
  closing = true;
  log(`closing: ${why}`);
  await isolate.close();
  workDir.remove();
  process.exit(code);
}

/** @param {string} line */
async function handle(line) {
  if (!line.trim()) return;
  /** @type {any} */
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    answerError(null, new Error(`a request line is not JSON: ${line.slice(0, 200)}`));
    return;
  }
  const id = message?.id;
  try {
    switch (message?.op) {
      case "load":
        answerOk(id, JSON.stringify(await load(message)));
        return;
      case "run":
        {
          const text = await isolate.run(JSON.stringify(message.plan), stuckMs(message.plan));
          answerOk(id, mapper ? mapper.runResult(text) : text);
        }
        return;
      case "probe":
        answerOk(id, await isolate.control("GET", "/probe"));
        return;
      case "raw_run":
        // The differential runner's raw side (raw.mjs): the handler on the unproxied bindings.
        answerOk(id, await isolate.control("POST", "/raw", JSON.stringify(message.request)));
        return;
      case "close":
        if (id !== undefined) answerOk(id);
        await shutdown("asked to close");
        return;
      default:
        throw new Error(`unknown op ${JSON.stringify(message?.op)}; expected load, run, raw_run, probe or close`);
    }
  } catch (error) {
    answerError(id, error);
  }
}

// Requests are handled strictly one after another: runs share one isolate and one database.
let queue = Promise.resolve();
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  queue = queue.then(() => handle(line));
});
lines.on("close", () => {
  queue = queue.then(() => shutdown("stdin closed"));
});
for (const signal of /** @type {const} */ (["SIGTERM", "SIGINT", "SIGHUP"])) {
  process.on(signal, () => void shutdown(`got ${signal}`, 1));
}
const parentPid = process.ppid;
setInterval(() => {
  if (process.ppid !== parentPid) void shutdown("the parent process exited", 1);
}, PARENT_POLL_MS).unref();
log(`ready (node ${process.version}, pid ${process.pid})`);
