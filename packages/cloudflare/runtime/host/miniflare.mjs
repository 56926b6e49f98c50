// @ts-check
/**
 * The Miniflare lifecycle: one instance (one workerd) for the loaded bundle, kept for every
 * run, replaced on the next load, disposed on exit; and the control request a run is, one
 * HTTP request over a direct socket to the bundle's control entrypoint.
 *
 * The watchdog. The runtime ends every run itself (a hung effect is UNSUPPORTED after the
 * budget) unless the Worker's code never yields, which stops the isolate's timers too. The
 * runtime writes a progress line at each invocation start and effect point (progress.mjs);
 * a run whose isolate has written none for longer than its `stuckMs` is stopped: workerd is
 * restarted on the same bundle and the run answers UNSUPPORTED (cpu_bound), naming the
 * invocation and its last effect.
 *
 * The Worker's CPU limit (the config's `limits.cpu_ms`, else Cloudflare's 30 s; the load
 * message's `cpuLimitMs`) comes first when it is shorter: once workerd's own CPU time since
 * the last progress line reaches it (read from /proc; the wall clock where that cannot be
 * read), Cloudflare would have stopped the invocation there. workerd is restarted and the
 * plan run again with `cpuExceeded` naming the invocation and the point it stalled after,
 * where the runtime stops it as a crash would and records its outcome `timed_out`; the run
 * then goes on, and its answer is the rerun's. At most CPU_RERUNS_MAX reruns per run.
 */

import fs from "node:fs";
import http from "node:http";
import { setImmediate } from "node:timers";

import { PROGRESS_PREFIX } from "../progress.mjs";
import { ASSETS_BINDING, CONFIG_BINDING, PROTOCOL_VERSION } from "../run.mjs";
import { CONTROL_EXPORT, StackMapper, miniflareModuleRules } from "./bundler.mjs";
import { UserError, log, toolchain } from "./toolchain.mjs";

const { Miniflare, Log, LogLevel } = toolchain.miniflare;

/** How long Miniflare gets to stop its workerd before the host goes on anyway. */
const DISPOSE_TIMEOUT_MS = 5000;
/** How often a run's watchdog looks at the isolate's last progress. */
const WATCH_MS = 100;
/** The most times one run is rerun for invocations past the CPU limit (each costs a restart). */
const CPU_RERUNS_MAX = 16;
/**
 * The least CPU limit the watchdog applies: between two progress lines workerd also does the
 * runtime's own work (a reset, a snapshot) and the effects' I/O, which Cloudflare does not
 * count, so a limit of a few milliseconds (the free plan's 10) is measured as this.
 */
const CPU_LIMIT_FLOOR_MS = 200;
/**
 * CPU time workerd may spend starting before the Worker's module counts as never returning
 * from its top level (a loop at load): workerd itself starts in well under a second of CPU.
 */
const LOAD_CPU_MS = 10_000;
/**
 * Real time workerd may take to start where its CPU time cannot be read (no /proc), or while
 * it waits without spending CPU; past it the start is Eutaxy's failure, said as such. Python's
 * own deadline on the load answer (host.py LOAD_TIMEOUT_S) is longer.
 */
const LOAD_WALL_MS = 90_000;
/** A workerd that used less than 1/this of the time as CPU while it made no progress was not running the Worker's code. */
const FROZEN_CPU_SHARE_INVERSE = 10;
/** Linux's clock ticks per second (USER_HZ), the unit of /proc/<pid>/stat's CPU times. */
const CLOCK_TICKS_PER_S = 100;

/** The pids of this process's workerd children (Miniflare spawns one per instance). */
function workerdPids() {
  /** @type {number[]} */
  const pids = [];
  try {
    for (const name of fs.readdirSync("/proc")) {
      if (!/^[0-9]+$/.test(name)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (Number(fields[1]) === process.pid && stat.includes("(workerd)")) pids.push(Number(name));
      } catch {
        // A process that ended meanwhile.
      }
    }
  } catch {
    // No /proc: the CPU limit falls back to the wall clock.
  }
  return pids;
}

/** CPU milliseconds (user + system) `pids` have used, or null when /proc cannot tell. @param {number[]} pids */
function cpuMsOf(pids) {
  if (pids.length === 0) return null;
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      return null;
    }
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_S;
}

/** Miniflare's log, kept off stdout (which carries only answers). */
class StderrLog extends Log {
  /** @param {string} message */
  log(message) {
    process.stderr.write(message + "\n");
  }
}

/**
 * `modules`: the module list (bundler.mjs `bundle`'s answer, the bundle first: a Worker that is
 * not bundled, its modules; else the modules the module rules wrote beside the bundle), each
 * named by its path from `modulesRoot`; `noBundle.baseDir` the folder a Worker's module names
 * are relative to when it is not bundled (its stack positions are mapped from there).
 * `rawCallees`: each callee Worker bundled alone (host/bundler.mjs `bundleAlone`), which the
 * isolate runs as a Worker of its own beside the loaded one, reached through a real service
 * binding: what the differential runner's raw side calls (raw.mjs); the proxied runs never do.
 * @typedef {{binding: string, caller: string | null, name: string, entrypoint: string | null, scriptPath: string,
 *   miniflare: Record<string, any>, vars: Record<string, unknown>}} RawCallee
 * @typedef {{scriptPath: string, modules: {type: string, path: string}[], modulesRoot: string, root: string, noBundle?: {baseDir: string} | null,
 *   compatibilityDate: string, compatibilityFlags: string[],
 *   kindBindings: Record<string, any>, vars: Record<string, unknown>, runtime: object, cpuLimitMs: number, rawCallees?: RawCallee[]}} IsolateOptions
 * @typedef {{directory: string, binding: string | null, runWorkerFirst: boolean | string[], htmlHandling: string, notFoundHandling: string}} AssetsSettings
 */

/**
 * Miniflare's assets option for the config's `assets`: the directory, the Worker's binding
 * (ASSETS_BINDING, hidden from the Worker, when it has none), the asset worker's
 * html_handling and not_found_handling, and the router's config as wrangler writes it from
 * run_worker_first (the http drive routes by the same rule, bindings/assets.mjs).
 * @param {AssetsSettings} assets
 */
function assetsOptions(assets) {
  const patterns = Array.isArray(assets.runWorkerFirst) ? assets.runWorkerFirst : null;
  return {
    directory: assets.directory,
    binding: assets.binding ?? ASSETS_BINDING,
    routerConfig: {
      has_user_worker: true,
      invoke_user_worker_ahead_of_assets: assets.runWorkerFirst === true,
      ...(patterns
        ? { static_routing: { user_worker: patterns.filter((one) => !one.startsWith("!")), asset_worker: patterns.filter((one) => one.startsWith("!")).map((one) => one.slice(1)) } }
        : {}),
    },
    assetConfig: { html_handling: assets.htmlHandling, not_found_handling: assets.notFoundHandling },
  };
}

/** Miniflare's options shared by every Worker of an instance (the rest are each Worker's). */
const SHARED_OPTIONS = ["cf", "log", "handleRuntimeStdio"];

/** The name the loaded Worker takes among several (its callees run beside it). */
const MAIN_WORKER = "eutaxy-main";

/** The name a callee Worker takes beside the loaded one. @param {string} name */
function calleeWorkerName(name) {
  return `eutaxy-callee-${name}`;
}

/**
 * The instance's options: the loaded Worker's alone, or with callees each callee as a Worker of
 * its own (its bundle alone, its own bindings under its own names on the same resources, so it
 * reads the databases the loaded Worker names qualified), reached from its caller through a real
 * service binding (the loaded Worker's, or a callee Worker's own).
 * @param {IsolateOptions} options @param {Record<string, any>} main the loaded Worker's options
 */
function withCalleeWorkers(options, main) {
  const callees = options.rawCallees ?? [];
  if (callees.length === 0) return main;
  /** @type {Record<string, any>} */
  const shared = {};
  /** @type {Record<string, any>} */
  const worker = { name: MAIN_WORKER };
  for (const [key, value] of Object.entries(main)) (SHARED_OPTIONS.includes(key) ? shared : worker)[key] = value;
  /** @param {string | null} caller */
  const servicesOf = (caller) => Object.fromEntries(callees.filter((one) => one.caller === caller).map((one) => [
    caller === null ? one.binding : one.binding.slice(caller.length + 1),
    { name: calleeWorkerName(one.name), ...(one.entrypoint === null ? {} : { entrypoint: one.entrypoint }) },
  ]));
  worker.serviceBindings = servicesOf(null);
  const others = callees.map((one) => ({
    name: calleeWorkerName(one.name),
    modulesRoot: options.modulesRoot,
    modules: true,
    scriptPath: one.scriptPath,
    modulesRules: miniflareModuleRules(),
    compatibilityDate: options.compatibilityDate,
    compatibilityFlags: options.compatibilityFlags,
    ...one.miniflare,
    // Its Durable Object classes are the isolate's, exported under their aliases by the loaded Worker's bundle.
    ...(one.miniflare.durableObjects ? { durableObjects: ofMainWorker(one.miniflare.durableObjects) } : {}),
    bindings: one.vars,
    serviceBindings: servicesOf(one.name),
  }));
  return { ...shared, workers: [worker, ...others] };
}

/**
 * A callee Worker's Durable Object bindings (binding -> class alias) as classes of the loaded
 * Worker's script, which exports them (host/bundler.mjs), so both reach the same objects.
 * @param {Record<string, string>} objects
 */
function ofMainWorker(objects) {
  return Object.fromEntries(Object.entries(objects).map(([binding, className]) => [binding, { className, scriptName: MAIN_WORKER }]));
}

/** The running workerd with the loaded bundle, if any. */
export class Isolate {
  constructor() {
    /** @type {any} */
    this.mf = null;
    /** @type {URL | null} */
    this.controlUrl = null;
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    /** @type {IsolateOptions | null} what the isolate was started with, for a restart */
    this.options = null;
    /** The last progress line: when it came, workerd's CPU time then, the invocation, what it reached and its ordinal. */
    this.progress = { at: Date.now(), cpuMs: /** @type {number | null} */ (null), invocation: "", what: "start", ordinal: /** @type {number | null} */ (null) };
    /** workerd's pids, for its CPU time. @type {number[]} */
    this.pids = [];
  }

  /**
   * Start workerd on a bundle, stopping the one before. `whileStarting` runs once workerd is
   * spawned, while it starts (it compiles the bundle on its own threads), so the host's own
   * work there (reading the bundle's source map) costs no wall time.
   * @param {IsolateOptions} options @param {() => void} [whileStarting]
   */
  async start(options, whileStarting) {
    await this.dispose();
    const mf = new Miniflare(withCalleeWorkers(options, {
      modulesRoot: options.modulesRoot,
      // The modules as a list, named from the work directory: Miniflare loads them as given (it would
      // otherwise parse the bundle to find its imports). A Worker that is not bundled: an import
      // between its modules (a computed one too) is workerd's to resolve, as in production.
      modules: options.modules,
      // Miniflare would fetch Request.cf data from the network; a fixed placeholder keeps a
      // check offline and the same on every machine.
      cf: {},
      compatibilityDate: options.compatibilityDate,
      compatibilityFlags: options.compatibilityFlags,
      // The registered binding kinds' Miniflare options as their Python records wrote them (d1Databases,
      // kvNamespaces, r2Buckets, durableObjects); the assets' section becomes Miniflare's assets option.
      ...options.kindBindings,
      ...(options.kindBindings.assets ? { assets: assetsOptions(options.kindBindings.assets) } : {}),
      bindings: { ...options.vars, [CONFIG_BINDING]: options.runtime },
      unsafeDirectSockets: [{ entrypoint: CONTROL_EXPORT }],
      log: new StderrLog(LogLevel.WARN),
      handleRuntimeStdio: (/** @type {import("node:stream").Readable} */ stdout, /** @type {import("node:stream").Readable} */ stderr) => {
        this.readProgress(stdout);
        stderr.pipe(process.stderr);
        if (whileStarting) setImmediate(whileStarting);
      },
    }));
    try {
      this.controlUrl = await startedWithin(mf.unsafeGetDirectURL(undefined, CONTROL_EXPORT));
    } catch (error) {
      await Promise.race([mf.dispose().catch(() => {}), new Promise((resolve) => setTimeout(resolve, DISPOSE_TIMEOUT_MS))]);
      if (error instanceof NotStarted) throw error.user ? new UserError(error.message) : new Error(error.message);
      throw new UserError(startFailure(/** @type {Error} */ (error), new StackMapper(options.scriptPath, options.root, options.noBundle?.baseDir ?? null)));
    }
    this.mf = mf;
    this.options = options;
    this.pids = workerdPids();
  }

  /** Progress lines from workerd's stdout update `progress`; every other line goes to the log. @param {import("node:stream").Readable} stdout */
  readProgress(stdout) {
    let pending = "";
    stdout.on("data", (/** @type {Buffer} */ chunk) => {
      const lines = (pending + chunk.toString("utf8")).split("\n");
      pending = /** @type {string} */ (lines.pop());
      for (const line of lines) {
        if (!line.startsWith(PROGRESS_PREFIX)) {
          process.stderr.write(line + "\n");
          continue;
        }
        try {
          this.progress = { at: Date.now(), cpuMs: cpuMsOf(this.pids), ordinal: null, ...JSON.parse(line.slice(PROGRESS_PREFIX.length)) };
        } catch {
          process.stderr.write(line + "\n");
        }
      }
    });
  }

  /** Stop workerd (waiting at most DISPOSE_TIMEOUT_MS); the isolate is then empty. */
  async dispose() {
    const mf = this.mf;
    this.mf = null;
    this.controlUrl = null;
    if (!mf) return;
    const stopping = mf.dispose().catch((/** @type {Error} */ error) => log(`dispose failed: ${error.message}`));
    await Promise.race([stopping, new Promise((resolve) => setTimeout(resolve, DISPOSE_TIMEOUT_MS))]);
  }

  /** Dispose and free the socket pool, for good. */
  async close() {
    await this.dispose();
    this.agent.destroy();
  }

  /**
   * One control request; its answer's text on 200, else the isolate's error.
   * @param {string} method @param {string} route @param {string} [body] @returns {Promise<string>}
   */
  async control(method, route, body) {
    if (!this.controlUrl) throw new UserError("no Worker is loaded: send a load request first");
    return resultText(await request(this.controlUrl, this.agent, method, route, body));
  }

  /**
   * A run, under the watchdog: its RunResult text, or UNSUPPORTED (cpu_bound) when the
   * isolate made no progress for `stuckMs`, after which workerd is restarted.
   * @param {string} body the plan's JSON @param {number} stuckMs @returns {Promise<string>}
   */
  async run(body, stuckMs) {
    if (!this.controlUrl) throw new UserError("no Worker is loaded: send a load request first");
    /** @type {{invocation: string, ordinal: number | null}[]} */
    const exceeded = [];
    // Bounded: every pass that does not return adds one stop, and past CPU_RERUNS_MAX stops it returns.
    for (let tries = 0; tries <= CPU_RERUNS_MAX + 1; tries++) {
      const plan = exceeded.length === 0 ? body : JSON.stringify({ ...JSON.parse(body), cpuExceeded: exceeded });
      const answer = await this.runOnce(plan, stuckMs);
      if (typeof answer === "string") return answer;
      // Past the CPU limit: Cloudflare stops the invocation there; run again, stopping it there.
      log(`run: ${answer.invocation} ran past the CPU limit of ${this.cpuLimitMs()} ms after ${answer.what}; workerd restarted, the run is run again with it stopped there`);
      // Stalled again where the rerun was to stop it (a start the runtime cannot intercept, such
      // as a Durable Object's alarm()), or too often: a loop Eutaxy cannot stop the platform's way.
      const again = exceeded.some((stop) => stop.invocation === answer.invocation && stop.ordinal === answer.ordinal);
      exceeded.push({ invocation: answer.invocation, ordinal: answer.ordinal });
      if (again || exceeded.length > CPU_RERUNS_MAX || !answer.invocation) {
        return JSON.stringify(cpuBound(answer, stuckMs, `past the CPU limit of ${this.cpuLimitMs()} ms where the run could not stop it (${exceeded.length} tries)`));
      }
    }
    throw new Error(`eutaxy internal error: a run was tried ${CPU_RERUNS_MAX + 2} times past the CPU limit, beyond CPU_RERUNS_MAX (${CPU_RERUNS_MAX})`);
  }

  /** The Worker's CPU limit per invocation (the load message's `cpuLimitMs`), at least CPU_LIMIT_FLOOR_MS. */
  cpuLimitMs() {
    const limit = this.options?.cpuLimitMs;
    return limit === undefined ? Infinity : Math.max(limit, CPU_LIMIT_FLOOR_MS);
  }

  /**
   * One try of a run under the watchdog: its RunResult text, or, when an invocation ran past
   * the CPU limit, where it stalled (workerd is then restarted).
   * @param {string} body @param {number} stuckMs
   * @returns {Promise<string | {invocation: string, what: string, ordinal: number | null}>}
   */
  async runOnce(body, stuckMs) {
    this.progress = { at: Date.now(), cpuMs: cpuMsOf(this.pids), invocation: "", what: "start", ordinal: null };
    /** @type {http.ClientRequest | null} */
    let sent = null;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    let timer;
    const cpuLimitMs = this.cpuLimitMs();
    const stuck = new Promise((resolve) => {
      timer = setInterval(() => {
        const wallMs = Date.now() - this.progress.at;
        const now = this.progress.cpuMs === null ? null : cpuMsOf(this.pids);
        const cpuMs = now === null || this.progress.cpuMs === null ? wallMs : now - this.progress.cpuMs;
        if (cpuMs >= cpuLimitMs && this.progress.invocation) resolve({ ...this.progress, overCpu: true });
        else if (wallMs > stuckMs) resolve({ ...this.progress, overCpu: false });
      }, WATCH_MS);
    });
    try {
      const answered = request(this.controlUrl, this.agent, "POST", "/run", body, (request) => { sent = request; });
      const first = await Promise.race([answered.then((answer) => ({ answer })), stuck.then((last) => ({ last }))]);
      if ("answer" in first) return resultText(first.answer);
      answered.catch(() => {});
      /** @type {any} */ (sent)?.destroy();
      const last = /** @type {{at: number, cpuMs: number | null, invocation: string, what: string, ordinal: number | null, overCpu: boolean}} */ (first.last);
      log(`run stopped: ${last.invocation || "the run"} made no progress for ${last.overCpu ? `its CPU limit of ${cpuLimitMs}` : stuckMs} ms; restarting workerd`);
      // Read before the restart: a stopped or starved workerd is Eutaxy's (or the machine's), not the Worker's loop.
      const frozen = last.overCpu ? null : frozenRuntime(this.pids, last.cpuMs, Date.now() - last.at);
      await this.start(/** @type {IsolateOptions} */ (this.options));
      if (last.overCpu) return { invocation: last.invocation, what: last.what, ordinal: last.ordinal };
      return JSON.stringify(frozen ? unresponsive(last, frozen) : cpuBound(last, stuckMs));
    } finally {
      clearInterval(timer);
    }
  }
}

/** workerd did not start in time: `user` when the Worker's top level kept it busy. */
class NotStarted extends Error {
  /** @param {string} message @param {boolean} user */
  constructor(message, user) {
    super(message);
    this.user = user;
  }
}

/**
 * `ready` (workerd started, the Worker's module ran), unless workerd spends LOAD_CPU_MS of CPU
 * first (the module's top level never returns: a loop) or LOAD_WALL_MS pass.
 * @template T @param {Promise<T>} ready @returns {Promise<T>}
 */
function startedWithin(ready) {
  const startedAt = Date.now();
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let timer;
  const late = new Promise((_, reject) => {
    timer = setInterval(() => {
      const cpuMs = cpuMsOf(workerdPids());
      if (cpuMs !== null && cpuMs >= LOAD_CPU_MS) {
        reject(new NotStarted(`the Worker's module never finished loading: its top level ran ${Math.round(cpuMs / 1000)} s of CPU time ` +
          "without returning (a loop at module top level?); Cloudflare refuses a Worker whose startup runs past its startup time limit", true));
      } else if (Date.now() - startedAt > LOAD_WALL_MS) {
        reject(new NotStarted(`workerd did not start within ${LOAD_WALL_MS / 1000} s (eutaxy internal error or an overloaded machine)`, false));
      }
    }, WATCH_MS);
  });
  return /** @type {Promise<T>} */ (Promise.race([ready, late])).finally(() => clearInterval(timer));
}

/** workerd's words for a compatibility flag it does not know. */
const UNKNOWN_FLAG = /No such compatibility flag: ([^\s]+)/;

/** What workerd printed before the stack of an error the Worker's module threw as it loaded. */
const UNCAUGHT = /^service [^\n]*?: Uncaught /m;

/**
 * Why workerd did not start, in the user's terms: an error the Worker's module threw as it
 * loaded is shown as the Worker's error, its stack at the source's lines (the bundle's map,
 * relative to the Worker's folder),
 * without Miniflare's guess at a problem with workerd; any other failure is shown as it came.
 * @param {Error} error @param {StackMapper} mapper
 */
function startFailure(error, mapper) {
  const stderr = error.message.split("\nRuntime stderr:\n")[1];
  const flag = stderr?.match(UNKNOWN_FLAG);
  if (flag) {
    return `the Worker's compatibility_flags name ${JSON.stringify(flag[1])}, which workerd (the version Eutaxy pins) does not know; ` +
      "check its spelling against Cloudflare's compatibility flags, or remove it";
  }
  if (stderr !== undefined && stderr.trim() && !UNCAUGHT.test(stderr)) {
    // workerd said why; Miniflare's guess at a problem with the workerd binary comes after it, if at all.
    return `the Worker did not start in workerd: ${mapper.text(stderr.trim())}`;
  }
  if (stderr === undefined || !UNCAUGHT.test(stderr)) return `the Worker did not start in workerd: ${error.message}`;
  const thrown = stderr.slice(stderr.search(UNCAUGHT)).replace(UNCAUGHT, "");
  return `the Worker's module threw as it loaded: ${mapper.text(thrown.trim())}`;
}

/**
 * Why workerd made no progress without being busy, or null when it was busy (the Worker's code
 * ran: a loop): stopped (`T` in /proc, SIGSTOP or a debugger), or it used less than a tenth of
 * the time as CPU (starved or frozen). Null too when /proc cannot tell.
 * @param {number[]} pids @param {number | null} cpuMsThen workerd's CPU time at the last progress line @param {number} wallMs since it
 * @returns {string | null}
 */
function frozenRuntime(pids, cpuMsThen, wallMs) {
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
      if (state === "T" || state === "t") return `workerd (pid ${pid}) was stopped (state ${state}: SIGSTOP, or a debugger)`;
    } catch {
      return null;
    }
  }
  const cpuMsNow = cpuMsOf(pids);
  if (cpuMsNow === null || cpuMsThen === null) return null;
  const used = cpuMsNow - cpuMsThen;
  if (used * FROZEN_CPU_SHARE_INVERSE >= wallMs) return null;
  return `workerd used ${Math.round(used)} ms of CPU time in ${Math.round(wallMs)} ms without progress, so it was not running the Worker's code (a frozen runtime, or a machine too loaded to run it)`;
}

/**
 * The RunResult of a run whose runtime stopped answering without running the Worker's code:
 * UNSUPPORTED `runtime_unresponsive`, Eutaxy's (or the machine's), never the Worker's loop.
 * @param {{invocation: string, what: string}} last @param {string} why
 */
function unresponsive(last, why) {
  const who = last.invocation || "the run (before any invocation)";
  const where = last.what === "start" ? "it had reached no effect" : `its last effect was ${last.what}`;
  return {
    protocol: PROTOCOL_VERSION, effects: [], eligible: 0, decisions: [],
    end: { kind: "unsupported", cause: "runtime_unresponsive", detail: `${why} while ${who} ran; ${where}; workerd was restarted` },
  };
}

/**
 * The RunResult of a run stopped by the watchdog.
 * @param {{invocation: string, what: string}} last @param {number} stuckMs @param {string} [why] instead of the real time
 */
function cpuBound(last, stuckMs, why) {
  const who = last.invocation || "the run (before any invocation)";
  const where = last.what === "start" ? "it had reached no effect" : `its last effect was ${last.what}`;
  return {
    protocol: PROTOCOL_VERSION, effects: [], eligible: 0, decisions: [],
    end: { kind: "unsupported", cause: "cpu_bound",
      detail: `${who} ran ${why ?? `${stuckMs} ms of real time without yielding (a loop that never ends?)`}; ${where}; workerd was restarted` },
  };
}

/**
 * @param {URL} url @param {http.Agent} agent @param {string} method @param {string} route @param {string} [body]
 * @param {(sent: http.ClientRequest) => void} [onSent]
 * @returns {Promise<{status: number, text: string}>}
 */
function request(url, agent, method, route, body, onSent) {
  return new Promise((resolve, reject) => {
    const sent = http.request(
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
    sent.on("error", reject);
    onSent?.(sent);
    sent.end(body);
  });
}

/** @param {{status: number, text: string}} answer */
function resultText(answer) {
  if (answer.status === 200) return answer.text;
  let error = answer.text;
  let user = false;
  /** @type {string | undefined} */
  let near;
  try {
    const data = JSON.parse(answer.text);
    error = data.error ?? error;
    user = Boolean(data.user);
    near = typeof data.near === "string" ? data.near : undefined;
  } catch {
    // Not JSON: workerd's own error page; pass its text on.
  }
  if (user) throw Object.assign(new UserError(error), near ? { near } : {});
  throw new Error(`the run failed inside the isolate (status ${answer.status}): ${error}`);
}
