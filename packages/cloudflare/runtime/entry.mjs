// @ts-check
/**
 * The control entrypoint the host calls, one request per run, over a direct socket
 * Miniflare opens to this named export (so no route of the user's Worker is shadowed).
 *
 * POST /run with a RunPlan answers the RunResult (200), a user error (400, `{error}`) or an
 * internal failure (500, `{error}`). GET /probe answers whether every global is the isolate's
 * own again (the host's `probe` op; tests use it to see globals restored after a run).
 * POST /raw performs the differential runner's raw run (raw.mjs; the host's `raw_run` op).
 */

import { endLoadWatch, originals } from "./patch.mjs";
import { CONFIG_BINDING, UserFacingError, runPlan } from "./run.mjs";
import { environmentLimit } from "./errors.mjs";
import { rawControl } from "./raw.mjs";

// This module evaluates after the Worker's: what it made at load is noted, the watch ends.
endLoadWatch();

/** @param {unknown} body @param {number} status */
function json(body, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

/**
 * The performance object and its now() once the Worker's module has evaluated (createControl):
 * a build may have replaced the isolate's (wrangler's nodejs_compat polyfill does).
 * @type {{performance: any, now: unknown} | null}
 */
let atLoad = null;

/** Which globals are not the isolate's own right now (empty outside a run). */
export function patchedGlobals() {
  const g = /** @type {any} */ (globalThis);
  /** @type {[string, unknown, unknown][]} */
  const checks = [
    ["Date", g.Date, originals.Date],
    ["Math.random", Math.random, originals.mathRandom],
    ["crypto.randomUUID", g.crypto?.randomUUID, originals.randomUUID],
    ["crypto.getRandomValues", g.crypto?.getRandomValues, originals.getRandomValues],
    ["performance.now", originals.performance?.now, originals.performanceNow],
    // A performance object the Worker's build installed at load (wrangler's nodejs_compat polyfill) is as it was then.
    ...(g.performance !== originals.performance && atLoad !== null && g.performance === atLoad.performance
      ? [/** @type {[string, unknown, unknown]} */ (["performance.now (the build's polyfill)", g.performance?.now, atLoad.now])]
      : []),
    ["setTimeout", g.setTimeout, originals.setTimeout],
    ["clearTimeout", g.clearTimeout, originals.clearTimeout],
    ["setInterval", g.setInterval, originals.setInterval],
    ["clearInterval", g.clearInterval, originals.clearInterval],
    ["fetch", g.fetch, originals.fetch],
    ["caches", g.caches, originals.caches],
    ["crypto.subtle.digest", g.crypto?.subtle?.digest, originals.subtleDigest],
    ["scheduler.wait", g.scheduler?.wait, originals.schedulerWait],
    ["WeakRef", g.WeakRef, originals.WeakRef],
    ["FinalizationRegistry", g.FinalizationRegistry, originals.FinalizationRegistry],
  ];
  return checks.filter(([, now, original]) => now !== original).map(([name]) => name);
}

/**
 * @param {any} userModule the user's Worker module namespace
 * @param {Record<string, any>} [calleeModules] each callee Worker's module namespace, by the binding its caller reaches it by
 */
export function createControl(userModule, calleeModules = {}) {
  const g = /** @type {any} */ (globalThis);
  atLoad = { performance: g.performance, now: g.performance?.now };
  return {
    /** @param {Request} request @param {Record<string, any>} env */
    async fetch(request, env) {
      const path = new URL(request.url).pathname;
      if (path === "/probe") {
        return json({ patched: patchedGlobals(), now: originals.dateNow.call(originals.Date) > 0 });
      }
      // The differential runner's raw side (raw.mjs): the handler on the unproxied bindings.
      if (path === "/raw") return rawControl(request, env, userModule);
      if (path !== "/run" || request.method !== "POST") return json({ error: `no control route ${request.method} ${path}` }, 404);
      try {
        const plan = await request.json();
        const result = await runPlan(plan, env[CONFIG_BINDING] ?? {}, env, userModule, calleeModules);
        return json(result);
      } catch (thrown) {
        // A reset or snapshot the machine's full storage failed is its limit, not a bug in Eutaxy.
        const error = environmentLimit(thrown) ?? thrown;
        const user = error instanceof UserFacingError;
        const message = error instanceof Error ? (user ? error.message : `${error.name}: ${error.message}\n${error.stack ?? ""}`) : String(error);
        if (!user) console.error("eutaxy: run failed inside the isolate:", message);
        const near = user ? error.near : undefined;
        return json({ error: message, user, ...(near ? { near } : {}) }, user ? 400 : 500);
      }
    },
  };
}
