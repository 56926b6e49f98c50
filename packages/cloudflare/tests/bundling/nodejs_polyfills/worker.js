// Under nodejs_compat, wrangler's build gives a module workerd lacks (node:child_process,
// node:perf_hooks) as unenv's polyfill, sets globalThis.process to its hybrid process, and
// turns a CommonJS dependency's require() of a built-in into an import.
import { exec } from "node:child_process";
import { performance as hooks } from "node:perf_hooks";
import { joined, hasSpawn } from "cjs-paths";

export default {
  async fetch(request, env) {
    let execSays;
    try {
      exec("ls");
      execSays = "ran";
    } catch (error) {
      execSays = error instanceof Error ? "not implemented" : "threw";
    }
    const parts = [
      `exec ${typeof exec} ${execSays}`,
      `perf_hooks ${typeof hooks.mark}`,
      // The polyfill's now() reads the run's virtual clock, as workerd's own does in a check.
      `performance ${typeof globalThis.performance.mark} now ${performance.now()}`,
      // unenv's Process (workerd's own says release "node").
      `process ${typeof process.nextTick} release ${process.release?.name ?? "none"}`,
      `cjs ${joined} ${hasSpawn}`,
    ];
    await env.DB.prepare("INSERT INTO built (summary) VALUES (?)").bind(parts.join(" | ")).run();
    return new Response("ok");
  },
};
