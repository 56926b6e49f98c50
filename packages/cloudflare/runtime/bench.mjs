// @ts-check
/**
 * Measures the host: time to start and load the payments fixture, and wall time per run of
 * a fault-free queue run of two messages with two statements each (reset, four D1 writes,
 * two implicit acks, snapshots, one round trip). Not a test: wall time is never asserted.
 *   EUTAXY_NODE_MODULES=... node bench.mjs [runs]
 */

import { HostProcess, paymentsLoad, paymentsPlan } from "./test/helpers.mjs";

const runs = Number(process.argv[2] ?? 300);
const started = performance.now();
const host = new HostProcess();
await host.ok(paymentsLoad());
const loaded = performance.now() - started;
const plan = paymentsPlan({ globals: [0x9e3779b9, 0x243f6a88, 0xb7e15162, 0x12345678] });
for (let i = 0; i < 20; i++) await host.run(plan);
/** @type {number[]} */
const times = [];
const all = performance.now();
for (let i = 0; i < runs; i++) {
  const t = performance.now();
  await host.run(plan);
  times.push(performance.now() - t);
}
const total = performance.now() - all;
times.sort((a, b) => a - b);
const at = (/** @type {number} */ q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2);
console.log(JSON.stringify({
  startAndLoadMs: Number(loaded.toFixed(0)),
  runs, p50Ms: Number(at(0.5)), p90Ms: Number(at(0.9)), p99Ms: Number(at(0.99)), runsPerSecond: Number((runs / (total / 1000)).toFixed(0)),
}));
const log = host.stderr.join("").match(/bundled in \d+ ms, workerd ready in \d+ ms/);
if (log) console.log(log[0]);
await host.close();
