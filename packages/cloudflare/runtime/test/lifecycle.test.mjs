// @ts-check
/**
 * The host never outlives its parent and leaves nothing behind: closing stdin (or the
 * parent going away while stdin stays open) disposes Miniflare, whose workerd goes with
 * it, removes the host's work directory and exits.
 */

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import readline from "node:readline";
import test from "node:test";

import { HostProcess, NODE_MODULES, RUNTIME_DIR, paymentsLoad } from "./helpers.mjs";

/** @param {number} pid */
function childrenOf(pid) {
  const out = execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" }).trim();
  return out ? out.split(/\s+/).map(Number) : [];
}

/** @param {number} pid */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** @param {number} pid */
function workDirsOf(pid) {
  const dirs = [];
  for (const base of ["/dev/shm", process.env.TMPDIR ?? "/tmp"]) {
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base)) if (name.startsWith(`eutaxy-host-${pid}-`)) dirs.push(path.join(base, name));
  }
  return dirs;
}

/** @param {() => boolean} condition @param {number} ms */
async function eventually(condition, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

test("stdin closing stops the host, its workerd and removes its work directory", async () => {
  const host = new HostProcess();
  await host.ok(paymentsLoad());
  const pid = /** @type {number} */ (host.child.pid);
  const children = childrenOf(pid);
  assert.ok(children.length > 0, "Miniflare runs workerd as a child of the host");
  assert.equal(workDirsOf(pid).length, 1);
  host.child.stdin.end();
  assert.equal(await host.exited, 0);
  assert.ok(await eventually(() => children.every((child) => !alive(child)), 5000), "no workerd is left");
  assert.deepEqual(workDirsOf(pid), []);
});

test("the host exits when its parent dies, even with stdin still open", async () => {
  // A middle process starts the host sharing its stdio (so the test's stdin pipe stays open
  // to the host), reports the host's pid and waits to be killed.
  const middle = spawn(process.execPath, ["-e", `
    const { spawn } = require("node:child_process");
    const host = spawn(process.execPath, [${JSON.stringify(path.join(RUNTIME_DIR, "host.mjs"))}], {
      stdio: ["inherit", "inherit", "ignore"], env: { ...process.env, EUTAXY_NODE_MODULES: ${JSON.stringify(NODE_MODULES)} } });
    process.stdout.write(host.pid + "\\n");
    setInterval(() => {}, 1000);
  `], { stdio: ["pipe", "pipe", "ignore"] });
  const lines = readline.createInterface({ input: middle.stdout });
  const next = () => new Promise((resolve) => lines.once("line", resolve));
  const hostPid = Number(await next());
  assert.ok(hostPid > 0);
  middle.stdin.write(JSON.stringify({ id: 1, ...paymentsLoad() }) + "\n");
  assert.equal(JSON.parse(String(await next())).ok, true);
  const children = childrenOf(hostPid);
  assert.ok(children.length > 0);
  middle.kill("SIGKILL");
  assert.ok(await eventually(() => !alive(hostPid), 10000), "the host noticed its parent was gone and exited");
  assert.ok(await eventually(() => children.every((child) => !alive(child)), 5000), "its workerd went with it");
  assert.deepEqual(workDirsOf(hostPid), []);
  middle.stdin.end();
  lines.close();
});
