// @ts-check
/**
 * Runs the fidelity case's Worker on Miniflare's local Workflows engine (the pinned toolchain's,
 * EUTAXY_NODE_MODULES) and prints what it ends with, one JSON line: for each instance
 * `{id, status, output, error, steps}`, `steps` the step results the engine persisted in the
 * order it logged them (its status()'s local-dev step outputs). The instances are created one at a
 * time, each waited for until it is complete or errored (at most TIMEOUT_MS of real time).
 *
 * An instance given an `event` ({type, payload}) is sent it right after it is created.
 *
 * Usage: node local_engine.mjs <worker.js> <instances JSON: [{id, params, event?}]>
 */

import { createRequire } from "node:module";
import path from "node:path";

const TIMEOUT_MS = 60_000;
const POLL_MS = 50;

const [workerPath, instancesJson] = process.argv.slice(2);
const nodeModules = process.env.EUTAXY_NODE_MODULES;
if (!nodeModules || !workerPath || !instancesJson) throw new Error("usage: EUTAXY_NODE_MODULES=... node local_engine.mjs <worker.js> <instances JSON>");
const { Miniflare } = createRequire(path.join(nodeModules, "local-engine.js"))("miniflare");

const mf = new Miniflare({
  modules: true,
  scriptPath: path.resolve(workerPath),
  compatibilityDate: "2026-01-01",
  workflows: { FLOW: { name: "fidelity", className: "Fidelity" } },
});
try {
  const ended = [];
  for (const { id, params, event } of JSON.parse(instancesJson)) {
    const created = await mf.dispatchFetch("http://fidelity.invalid/create", { method: "POST", body: JSON.stringify({ id, params }) });
    if (!created.ok) throw new Error(`create ${id}: ${created.status} ${await created.text()}`);
    if (event) {
      const sent = await mf.dispatchFetch(`http://fidelity.invalid/send/${id}`, { method: "POST", body: JSON.stringify(event) });
      if (!sent.ok) throw new Error(`send ${id}: ${sent.status} ${await sent.text()}`);
    }
    const deadline = Date.now() + TIMEOUT_MS;
    for (;;) {
      const status = /** @type {any} */ (await (await mf.dispatchFetch(`http://fidelity.invalid/status/${id}`)).json());
      if (status.status === "complete" || status.status === "errored") {
        ended.push({ id, status: status.status, output: status.output ?? null, error: status.error ?? null, steps: status.__LOCAL_DEV_STEP_OUTPUTS });
        break;
      }
      if (Date.now() > deadline) throw new Error(`instance ${id} is still ${status.status} after ${TIMEOUT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
  process.stdout.write(JSON.stringify(ended) + "\n");
} finally {
  await mf.dispose();
}
