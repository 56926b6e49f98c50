// @ts-check
/**
 * The Node host: one process per checked Worker, owning one Miniflare instance that is
 * kept for every run of a check. It speaks JSON lines: one request per stdin line, one
 * answer per stdout line, everything else (its own log, Miniflare's, the Worker's console)
 * on stderr.
 *
 * Requests, answered in order, each answer carrying the request's id:
 *   {"id", "op": "load", "worker": {...}, "setup": [...]}  ->  {"id", "ok": true}
 *   {"id", "op": "run", "plan": RunPlan}                  ->  {"id", "ok": true, "result": RunResult}
 *   {"id", "op": "probe"}                                 ->  {"id", "ok": true, "result": {"patched": [...]}}
 *   {"id", "op": "raw_run", "request": RawRequest}        ->  {"id", "ok": true, "result": RawResult} (raw.mjs)
 *   {"op": "close"}                                       ->  {"id", "ok": true} when an id was given; then exit
 * A failure answers {"id", "ok": false, "error": "...", "user": bool} (`user` when the
 * Worker or scenario is at fault rather than Eutaxy).
 *
 * A run is one HTTP request over a direct socket to the bundle's control entrypoint, which
 * performs the whole run inside the isolate and answers the RunResult JSON, passed through
 * to stdout unparsed: one round trip per run.
 *
 * The host dies with its parent: stdin closing, the parent pid changing (polled) and
 * SIGTERM/SIGINT/SIGHUP all dispose Miniflare (which stops its workerd) and exit. The
 * toolchain's node_modules comes from EUTAXY_NODE_MODULES or `--node-modules DIR`.
 */

import { accessSync, constants, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, utimesSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";

import { splitSchema } from "./d1.mjs";
import { CONFIG_BINDING } from "./run.mjs";

const RUNTIME_DIR = path.dirname(fileURLToPath(import.meta.url));
/** The bundle's named export the host opens a direct socket to. */
const CONTROL_EXPORT = "__EutaxyControl";

/** How long Miniflare gets to stop its workerd before the host exits anyway. */
const DISPOSE_TIMEOUT_MS = 5000;
/** How often the host checks that its parent is still there. */
const PARENT_POLL_MS = 500;
/** How often a live host marks its work directory as in use. */
const HEARTBEAT_MS = 60_000;
/** A host work directory untouched this long belongs to a host that was killed outright. */
const STALE_MS = 30 * 60_000;
/** The compatibility date used when the Worker's config names none. */
const DEFAULT_COMPATIBILITY_DATE = "2025-09-01";

/** Binding kinds of the wrangler reader that the runtime replaces by traps. */
const TRAP_SECTIONS = /** @type {Record<string, string>} */ ({
  kvNamespaces: "kv", r2Buckets: "r2", hyperdrives: "hyperdrive", durableObjects: "durable_object",
  services: "service", queueProducers: "queue_producer", workflows: "workflow",
});

/** @param {string} message */
function log(message) {
  process.stderr.write(`eutaxy-host: ${message}\n`);
}

function nodeModulesDir() {
  const at = process.argv.indexOf("--node-modules");
  const dir = at >= 0 ? process.argv[at + 1] : process.env.EUTAXY_NODE_MODULES;
  if (!dir) throw new Error("the toolchain's node_modules is not given: set EUTAXY_NODE_MODULES or pass --node-modules DIR");
  return path.resolve(dir);
}

/** Load miniflare and esbuild from the toolchain, or say on stdout why not and exit. */
function loadToolchain() {
  try {
    const requireTool = createRequire(path.join(nodeModulesDir(), "eutaxy-host.js"));
    return { miniflare: requireTool("miniflare"), esbuild: requireTool("esbuild") };
  } catch (error) {
    const text = `the host cannot start: ${/** @type {Error} */ (error).message}`;
    process.stdout.write(JSON.stringify({ id: null, ok: false, error: text }) + "\n");
    log(text);
    process.exit(2);
  }
}

const toolchain = loadToolchain();
const { Miniflare, Log, LogLevel } = toolchain.miniflare;
const esbuild = toolchain.esbuild;

/** Miniflare's log, kept off stdout (which carries only answers). */
class StderrLog extends Log {
  /** @param {string} message */
  log(message) {
    process.stderr.write(message + "\n");
  }
}

/**
 * Where Miniflare's storage goes. It keeps non-persisted D1 data under $TMPDIR, and every
 * write there is synced: on a disk a run costs 60-90 ms, on a memory file system 6-8 ms
 * (measured here). So the host's own directory goes on /dev/shm when that is a writable
 * directory, else under the TMPDIR it was given; either way it is this host's alone and
 * removed on exit. A host killed outright cannot remove it, and /dev/shm is memory, so a
 * live host touches its directory every HEARTBEAT_MS and each start removes host
 * directories untouched for STALE_MS. (Not by pid: hosts in other pid namespaces share
 * /dev/shm, and their pids mean nothing here.)
 */
function makeWorkDir() {
  const shm = "/dev/shm";
  let base = os.tmpdir();
  try {
    accessSync(shm, constants.W_OK);
    if (statSync(shm).isDirectory()) base = shm;
  } catch {
    // No memory file system: stay under TMPDIR.
  }
  const now = Date.now();
  for (const name of readdirSync(base)) {
    if (!name.startsWith("eutaxy-host-")) continue;
    const dir = path.join(base, name);
    try {
      if (now - statSync(dir).mtimeMs > STALE_MS) rmSync(dir, { recursive: true, force: true });
    } catch {
      // Gone already, or not ours to remove.
    }
  }
  return mkdtempSync(path.join(base, `eutaxy-host-${process.pid}-`));
}

const workDir = makeWorkDir();
process.env.TMPDIR = workDir;
setInterval(() => {
  const now = new Date();
  try {
    utimesSync(workDir, now, now);
  } catch {
    // Removed under us: the next load reports what is missing.
  }
}, HEARTBEAT_MS).unref();

/** @type {any} */
let mf = null;
/** @type {URL | null} */
let controlUrl = null;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

class UserError extends Error {}

/**
 * The names a spec module exports, read from esbuild's metafile of a throwaway build.
 * @param {string} file @returns {Promise<string[]>}
 */
async function exportNames(file) {
  try {
    const built = await esbuild.build({
      entryPoints: [file], bundle: true, write: false, metafile: true, format: "esm", platform: "neutral",
      target: "es2022", outdir: workDir, external: ["cloudflare:*", "node:*"], logLevel: "silent",
      conditions: ["workerd", "worker", "browser"], mainFields: ["browser", "module", "main"],
    });
    const outputs = Object.values(built.metafile?.outputs ?? {});
    return outputs.flatMap((output) => output.exports ?? []);
  } catch (error) {
    const errors = /** @type {any} */ (error).errors ?? [];
    const lines = errors.map((/** @type {any} */ e) => `${e.location ? `${e.location.file}:${e.location.line}: ` : ""}${e.text}`);
    throw new UserError(`the spec module ${file} does not bundle: ${lines.join("; ") || String(error)}`);
  }
}

/**
 * The esbuild plugin that puts a recording wrapper (core.mjs) between each spec module and
 * every importer outside it; the wrapper alone imports the real module (`eutaxy-real:`), so
 * the module's calls between its own functions stay unrecorded.
 * @param {string[]} specs absolute paths @returns {Promise<import("esbuild").Plugin>}
 */
async function corePlugin(specs) {
  /** @type {Map<string, string[]>} */
  const names = new Map();
  for (const spec of specs) {
    if (!path.isAbsolute(spec)) throw new UserError(`specs must be absolute paths, got ${spec}`);
    /** @type {string} */
    let real;
    try {
      // esbuild resolves imports to real paths, so the wrapper is keyed by the real path too.
      real = realpathSync(spec);
    } catch {
      throw new UserError(`the spec module ${spec} does not exist`);
    }
    names.set(real, await exportNames(real));
  }
  // Decisions are recorded by name, so a name two spec modules export is refused at load
  // (core.mjs checks again, for functions, when the wrappers evaluate).
  /** @type {Map<string, string>} */
  const owner = new Map();
  for (const [spec, exported] of names) {
    for (const name of exported) {
      if (name === "default") continue;
      const first = owner.get(name);
      if (first !== undefined && first !== spec) {
        throw new UserError(`the spec modules ${first} and ${spec} both export ${name}; decisions are recorded by name, so rename one`);
      }
      owner.set(name, spec);
    }
  }
  const REAL = "eutaxy-real:";
  /** @param {string} spec */
  const wrapper = (spec) => {
    const exported = /** @type {string[]} */ (names.get(spec));
    const lines = [
      `import * as real from ${JSON.stringify(REAL + spec)};`,
      `import { coreExport } from ${JSON.stringify(path.join(RUNTIME_DIR, "core.mjs"))};`,
    ];
    exported.forEach((name, index) => {
      lines.push(`const e${index} = coreExport(${JSON.stringify(spec)}, ${JSON.stringify(name)}, real[${JSON.stringify(name)}]);`);
      lines.push(name === "default" ? `export { e${index} as default };` : `export { e${index} as ${JSON.stringify(name)} };`);
    });
    return lines.join("\n");
  };
  return {
    name: "eutaxy-core",
    setup(build) {
      build.onResolve({ filter: /^eutaxy-real:/ }, (args) => ({ path: args.path.slice(REAL.length) }));
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.eutaxyCore || args.kind === "entry-point") return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, namespace: "file", pluginData: { eutaxyCore: true },
        });
        if (resolved.errors.length || resolved.external || !names.has(resolved.path)) return undefined;
        return { path: resolved.path, namespace: "eutaxy-core" };
      });
      build.onLoad({ filter: /.*/, namespace: "eutaxy-core" }, (args) => ({ contents: wrapper(args.path), resolveDir: RUNTIME_DIR, loader: "js" }));
    },
  };
}

/**
 * Bundle the user's entry with the runtime: the patch module first, so it captures the real
 * globals before the Worker's module evaluates; `cloudflare:sockets` in user code resolves to
 * the runtime's trap; imports of a spec module from outside it go through its recording
 * wrapper (corePlugin).
 * @param {string} entry @param {string} outFile @param {string[]} [specs]
 */
async function bundle(entry, outFile, specs = []) {
  const runtime = (/** @type {string} */ name) => JSON.stringify(path.join(RUNTIME_DIR, name));
  const contents = [
    `import ${runtime("patch.mjs")};`,
    `import * as userModule from ${JSON.stringify(entry)};`,
    `import { createControl } from ${runtime("entry.mjs")};`,
    `export default userModule.default;`,
    `export const ${CONTROL_EXPORT} = createControl(userModule);`,
  ].join("\n");
  /** @type {import("esbuild").Plugin} */
  const sockets = {
    name: "eutaxy-sockets",
    setup(build) {
      build.onResolve({ filter: /^cloudflare:sockets$/ }, () => ({ path: path.join(RUNTIME_DIR, "sockets.mjs") }));
    },
  };
  const plugins = specs.length ? [sockets, await corePlugin(specs)] : [sockets];
  try {
    await esbuild.build({
      stdin: { contents, resolveDir: RUNTIME_DIR, sourcefile: "eutaxy-entry.mjs", loader: "js" },
      bundle: true, format: "esm", platform: "neutral", target: "es2022", outfile: outFile,
      conditions: ["workerd", "worker", "browser"], mainFields: ["browser", "module", "main"],
      external: ["cloudflare:*", "node:*"], plugins,
      logLevel: "silent", legalComments: "none",
    });
  } catch (error) {
    const errors = /** @type {any} */ (error).errors ?? [];
    // A location in the generated entry is the import of the user's entry: say only what failed.
    const where = (/** @type {any} */ at) => (at && !at.file.endsWith("eutaxy-entry.mjs") ? `${at.file}:${at.line}:${at.column}: ` : "");
    const lines = errors.map((/** @type {any} */ e) => `${where(e.location)}${e.text}`);
    throw new UserError(`the Worker does not bundle: ${lines.join("; ") || String(error)}`);
  }
}

/** @param {any} worker @param {any[]} setup */
function runtimeConfig(worker, setup) {
  /** @type {Record<string, {schema: string[]}>} */
  const d1 = {};
  for (const binding of Object.keys(worker.d1Databases ?? {})) d1[binding] = { schema: [] };
  for (const step of setup ?? []) {
    if (step?.kind !== "d1_schema") throw new UserError(`setup step ${JSON.stringify(step?.kind)} is not supported by the Cloudflare runtime yet`);
    if (!d1[step.binding]) throw new UserError(`setup d1_schema names binding ${step.binding}, which the Worker's config does not declare as a D1 database`);
    if (!path.isAbsolute(step.path)) throw new UserError(`setup d1_schema path must be absolute, got ${step.path}`);
    let text;
    try {
      text = readFileSync(step.path, "utf8");
    } catch (error) {
      throw new UserError(`setup d1_schema: cannot read ${step.path}: ${/** @type {Error} */ (error).message}`);
    }
    d1[step.binding].schema.push(...splitSchema(text));
  }
  /** @type {Record<string, string>} */
  const traps = {};
  for (const [section, kind] of Object.entries(TRAP_SECTIONS)) {
    for (const name of Object.keys(worker[section] ?? {})) traps[name] = kind;
  }
  for (const binding of worker.bindings ?? []) traps[binding.name] = binding.kind;
  /** @type {Record<string, {maxRetries?: number}>} */
  const queueConsumers = {};
  for (const [queue, consumer] of Object.entries(worker.queueConsumers ?? {})) {
    queueConsumers[queue] = Number.isInteger(consumer?.maxRetries) ? { maxRetries: consumer.maxRetries } : {};
  }
  return { d1, traps, queueConsumers };
}

/**
 * The Worker's flags, plus `nodejs_als` when it has neither that nor `nodejs_compat`: the
 * runtime's turn scheduler names the running invocation with AsyncLocalStorage
 * (`node:async_hooks`), which workerd offers only under one of them.
 * @param {string[]} flags
 */
function withAsyncContext(flags) {
  if (flags.some((flag) => flag === "nodejs_compat" || flag === "nodejs_compat_v2" || flag === "nodejs_als")) return flags;
  return [...flags, "nodejs_als"];
}

/** @param {any} message */
async function load(message) {
  const worker = message.worker ?? {};
  if (typeof worker.entry !== "string" || !path.isAbsolute(worker.entry)) throw new UserError(`worker.entry must be an absolute path, got ${JSON.stringify(worker.entry)}`);
  const started = performance.now();
  const config = runtimeConfig(worker, message.setup);
  const outFile = path.join(workDir, "worker.bundle.mjs");
  await bundle(worker.entry, outFile, Array.isArray(worker.specs) ? worker.specs : []);
  const bundled = performance.now();
  if (mf) {
    await mf.dispose();
    mf = null;
    controlUrl = null;
  }
  mf = new Miniflare({
    modules: true,
    modulesRoot: workDir,
    scriptPath: outFile,
    // Miniflare would fetch Request.cf data from the network; a fixed placeholder keeps a
    // check offline and the same on every machine.
    cf: {},
    compatibilityDate: worker.compatibilityDate ?? DEFAULT_COMPATIBILITY_DATE,
    compatibilityFlags: withAsyncContext(worker.compatibilityFlags ?? []),
    d1Databases: worker.d1Databases ?? {},
    bindings: { ...(worker.vars ?? {}), [CONFIG_BINDING]: config },
    unsafeDirectSockets: [{ entrypoint: CONTROL_EXPORT }],
    log: new StderrLog(LogLevel.WARN),
    handleRuntimeStdio(/** @type {import("node:stream").Readable} */ stdout, /** @type {import("node:stream").Readable} */ stderr) {
      stdout.pipe(process.stderr);
      stderr.pipe(process.stderr);
    },
  });
  try {
    controlUrl = await mf.unsafeGetDirectURL(undefined, CONTROL_EXPORT);
  } catch (error) {
    const failed = mf;
    mf = null;
    await failed.dispose().catch(() => {});
    throw new UserError(`the Worker did not start in workerd: ${/** @type {Error} */ (error).message}`);
  }
  log(`loaded ${worker.entry}: bundled in ${(bundled - started).toFixed(0)} ms, workerd ready in ${(performance.now() - bundled).toFixed(0)} ms`);
}

/** @param {string} method @param {string} route @param {string} [body] @returns {Promise<{status: number, text: string}>} */
function control(method, route, body) {
  if (!controlUrl) return Promise.reject(new UserError("no Worker is loaded: send a load request first"));
  const url = controlUrl;
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: url.hostname, port: url.port, path: route, method, agent,
        headers: body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (response) => {
        /** @type {Buffer[]} */
        const chunks = [];
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

/** @param {{status: number, text: string}} answer */
function resultText(answer) {
  if (answer.status === 200) return answer.text;
  let error = answer.text;
  let user = false;
  try {
    const data = JSON.parse(answer.text);
    error = data.error ?? error;
    user = Boolean(data.user);
  } catch {
    // Not JSON: workerd's own error page; pass its text on.
  }
  if (user) throw new UserError(error);
  throw new Error(`the run failed inside the isolate (status ${answer.status}): ${error}`);
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
  process.stdout.write(JSON.stringify({ id: id ?? null, ok: false, error: text, user }) + "\n");
}

let closing = false;

/** Dispose Miniflare (stopping workerd), remove the work directory and exit. @param {string} why @param {number} [code] */
async function shutdown(why, code = 0) {
  if (closing) return;
  closing = true;
  log(`closing: ${why}`);
  const stopping = mf ? mf.dispose().catch((/** @type {Error} */ error) => log(`dispose failed: ${error.message}`)) : Promise.resolve();
  await Promise.race([stopping, new Promise((resolve) => setTimeout(resolve, DISPOSE_TIMEOUT_MS))]);
  agent.destroy();
  rmSync(workDir, { recursive: true, force: true });
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
        await load(message);
        answerOk(id);
        return;
      case "run":
        answerOk(id, resultText(await control("POST", "/run", JSON.stringify(message.plan))));
        return;
      case "probe":
        answerOk(id, resultText(await control("GET", "/probe")));
        return;
      case "raw_run":
        // The differential runner's raw side (raw.mjs): the handler on the unproxied bindings.
        answerOk(id, resultText(await control("POST", "/raw", JSON.stringify(message.request))));
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
