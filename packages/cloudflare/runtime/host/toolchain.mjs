// @ts-check
/**
 * The host's toolchain: miniflare, esbuild and workerd's package (for the newest compatibility
 * date the pinned runtime supports), and unenv with Cloudflare's preset for it (importTool, for
 * wrangler's Node.js compatibility), loaded from the pinned node_modules that
 * EUTAXY_NODE_MODULES or `--node-modules DIR` names. When they cannot be loaded the host
 * says why on stdout (the one line Python reads before any request) and exits 2.
 */

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** @param {string} message */
export function log(message) {
  process.stderr.write(`eutaxy-host: ${message}\n`);
}

/** A failure that is the user's to fix (the Worker does not bundle, a setup step names an unknown binding). */
export class UserError extends Error {
  /** @type {string | undefined} the scenario's word the mistake is written at, when known (the Python side finds its line) */
  near;
  /** @type {string[] | undefined} Durable Object classes the config binds and the entry does not export (the Python side names the config lines) */
  missingClasses;
}

function nodeModulesDir() {
  const at = process.argv.indexOf("--node-modules");
  const dir = at >= 0 ? process.argv[at + 1] : process.env.EUTAXY_NODE_MODULES;
  if (!dir) throw new Error("the toolchain's node_modules is not given: set EUTAXY_NODE_MODULES or pass --node-modules DIR");
  return path.resolve(dir);
}

function loadToolchain() {
  try {
    const requireTool = createRequire(path.join(nodeModulesDir(), "eutaxy-host.js"));
    return { miniflare: requireTool("miniflare"), esbuild: requireTool("esbuild"), workerd: requireTool("workerd"), nodeModules: nodeModulesDir() };
  } catch (error) {
    const text = `the host cannot start: ${/** @type {Error} */ (error).message}`;
    process.stdout.write(JSON.stringify({ id: null, ok: false, error: text }) + "\n");
    log(text);
    process.exit(2);
  }
}

export const toolchain = loadToolchain();

/**
 * Import an ES-module-only package of the toolchain (unenv, @cloudflare/unenv-preset): its
 * package.json's `exports["."]` (`import`, else `default`), read from the toolchain's node_modules.
 * @param {string} name @returns {Promise<any>}
 */
export async function importTool(name) {
  const folder = path.join(toolchain.nodeModules, ...name.split("/"));
  /** @type {any} */
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(folder, "package.json"), "utf8"));
  } catch {
    throw new Error(`the Node toolchain at ${toolchain.nodeModules} has no ${name}: it predates the pinned lock; install it again (\`eutaxy toolchain install\`)`);
  }
  const root = manifest.exports?.["."] ?? manifest.exports ?? manifest.main;
  const target = typeof root === "string" ? root : root?.import ?? root?.default;
  if (typeof target !== "string") throw new Error(`the toolchain's ${name} names no ES module entry in its package.json`);
  return import(pathToFileURL(path.join(folder, target)).href);
}
