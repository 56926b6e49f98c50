// @ts-check
/**
 * The Miniflare lifecycle: one instance (one workerd) for the loaded bundle, kept for every
 * run, replaced on the next load, disposed on exit; and the control request a run is, one
 * HTTP request over a direct socket to the bundle's control entrypoint.
 */

import http from "node:http";

import { CONFIG_BINDING } from "../run.mjs";
import { CONTROL_EXPORT } from "./bundler.mjs";
import { UserError, log, toolchain } from "./toolchain.mjs";

const { Miniflare, Log, LogLevel } = toolchain.miniflare;

/** How long Miniflare gets to stop its workerd before the host goes on anyway. */
const DISPOSE_TIMEOUT_MS = 5000;

/** Miniflare's log, kept off stdout (which carries only answers). */
class StderrLog extends Log {
  /** @param {string} message */
  log(message) {
    process.stderr.write(message + "\n");
  }
}

/**
 * @typedef {{scriptPath: string, modulesRoot: string, compatibilityDate: string, compatibilityFlags: string[],
 *   d1Databases: Record<string, string>, vars: Record<string, unknown>, runtime: object}} IsolateOptions
 */

/** The running workerd with the loaded bundle, if any. */
export class Isolate {
  constructor() {
    /** @type {any} */
    this.mf = null;
    /** @type {URL | null} */
    this.controlUrl = null;
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
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
      bindings: { ...options.vars, [CONFIG_BINDING]: options.runtime },
      unsafeDirectSockets: [{ entrypoint: CONTROL_EXPORT }],
      log: new StderrLog(LogLevel.WARN),
      handleRuntimeStdio(/** @type {import("node:stream").Readable} */ stdout, /** @type {import("node:stream").Readable} */ stderr) {
        stdout.pipe(process.stderr);
        stderr.pipe(process.stderr);
      },
    });
    try {
      this.controlUrl = await mf.unsafeGetDirectURL(undefined, CONTROL_EXPORT);
    } catch (error) {
      await mf.dispose().catch(() => {});
      throw new UserError(`the Worker did not start in workerd: ${/** @type {Error} */ (error).message}`);
    }
    this.mf = mf;
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
}

/**
 * @param {URL} url @param {http.Agent} agent @param {string} method @param {string} route @param {string} [body]
 * @returns {Promise<{status: number, text: string}>}
 */
function request(url, agent, method, route, body) {
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
