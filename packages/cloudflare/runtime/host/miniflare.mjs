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
 */

import http from "node:http";

import { PROGRESS_PREFIX } from "../progress.mjs";
import { CONFIG_BINDING, PROTOCOL_VERSION } from "../run.mjs";
import { CONTROL_EXPORT, StackMapper } from "./bundler.mjs";
import { UserError, log, toolchain } from "./toolchain.mjs";

const { Miniflare, Log, LogLevel } = toolchain.miniflare;

/** How long Miniflare gets to stop its workerd before the host goes on anyway. */
const DISPOSE_TIMEOUT_MS = 5000;
/** How often a run's watchdog looks at the isolate's last progress. */
const WATCH_MS = 100;

/** Miniflare's log, kept off stdout (which carries only answers). */
class StderrLog extends Log {
  /** @param {string} message */
  log(message) {
    process.stderr.write(message + "\n");
  }
}

/**
 * @typedef {{scriptPath: string, modulesRoot: string, root: string, compatibilityDate: string, compatibilityFlags: string[],
 *   d1Databases: Record<string, string>, kvNamespaces: Record<string, string>, r2Buckets: Record<string, string>,
 *   durableObjects: Record<string, {className: string, useSQLite: boolean}>, vars: Record<string, unknown>, runtime: object}} IsolateOptions
 */

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
    /** The last progress line: when it came, the invocation and what it reached. */
    this.progress = { at: Date.now(), invocation: "", what: "start" };
  }

  /** Start workerd on a bundle, stopping the one before. @param {IsolateOptions} options */
  async start(options) {
    await this.dispose();
    const mf = new Miniflare({
      modules: true,
      modulesRoot: options.modulesRoot,
      scriptPath: options.scriptPath,
      // Miniflare would fetch Request.cf data from the network; a fixed placeholder keeps a
      // check offline and the same on every machine.
      cf: {},
      compatibilityDate: options.compatibilityDate,
      compatibilityFlags: options.compatibilityFlags,
      d1Databases: options.d1Databases,
      kvNamespaces: options.kvNamespaces,
      r2Buckets: options.r2Buckets,
      durableObjects: options.durableObjects,
      bindings: { ...options.vars, [CONFIG_BINDING]: options.runtime },
      unsafeDirectSockets: [{ entrypoint: CONTROL_EXPORT }],
      log: new StderrLog(LogLevel.WARN),
      handleRuntimeStdio: (/** @type {import("node:stream").Readable} */ stdout, /** @type {import("node:stream").Readable} */ stderr) => {
        this.readProgress(stdout);
        stderr.pipe(process.stderr);
      },
    });
    try {
      this.controlUrl = await mf.unsafeGetDirectURL(undefined, CONTROL_EXPORT);
    } catch (error) {
      await mf.dispose().catch(() => {});
      throw new UserError(startFailure(/** @type {Error} */ (error), new StackMapper(options.scriptPath, options.root)));
    }
    this.mf = mf;
    this.options = options;
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
          this.progress = { at: Date.now(), ...JSON.parse(line.slice(PROGRESS_PREFIX.length)) };
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
    this.progress = { at: Date.now(), invocation: "", what: "start" };
    /** @type {http.ClientRequest | null} */
    let sent = null;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    let timer;
    const stuck = new Promise((resolve) => {
      timer = setInterval(() => {
        if (Date.now() - this.progress.at > stuckMs) resolve({ ...this.progress });
      }, WATCH_MS);
    });
    try {
      const answered = request(this.controlUrl, this.agent, "POST", "/run", body, (request) => { sent = request; });
      const first = await Promise.race([answered.then((answer) => ({ answer })), stuck.then((last) => ({ last }))]);
      if ("answer" in first) return resultText(first.answer);
      answered.catch(() => {});
      /** @type {any} */ (sent)?.destroy();
      const last = /** @type {{invocation: string, what: string}} */ (first.last);
      log(`run stopped: ${last.invocation || "the run"} made no progress for ${stuckMs} ms; restarting workerd`);
      await this.start(/** @type {IsolateOptions} */ (this.options));
      return JSON.stringify(cpuBound(last, stuckMs));
    } finally {
      clearInterval(timer);
    }
  }
}

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
  if (stderr === undefined || !UNCAUGHT.test(stderr)) return `the Worker did not start in workerd: ${error.message}`;
  const thrown = stderr.slice(stderr.search(UNCAUGHT)).replace(UNCAUGHT, "");
  return `the Worker's module threw as it loaded: ${mapper.text(thrown.trim())}`;
}

/** The RunResult of a run stopped by the watchdog. @param {{invocation: string, what: string}} last @param {number} stuckMs */
function cpuBound(last, stuckMs) {
  const who = last.invocation || "the run (before any invocation)";
  const where = last.what === "start" ? "it had reached no effect" : `its last effect was ${last.what}`;
  return {
    protocol: PROTOCOL_VERSION, effects: [], eligible: 0, decisions: [],
    end: { kind: "unsupported", cause: "cpu_bound",
      detail: `${who} ran ${stuckMs} ms of real time without yielding (a loop that never ends?); ${where}; workerd was restarted` },
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
