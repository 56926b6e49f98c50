// @ts-check
/**
 * Where run_worker_first sends a request before the asset worker is asked (bindings/assets.mjs):
 * true sends all to the Worker; of patterns, a `!` one matching keeps the path with the assets,
 * else a plain one sends it to the Worker; else the asset worker decides.
 */

import assert from "node:assert/strict";
import { test } from "node:test";

import { firstRoute } from "../bindings/assets.mjs";

test("run_worker_first true sends every path to the Worker, false leaves each to the asset worker", () => {
  assert.equal(firstRoute(true, "/index.html"), "worker");
  assert.equal(firstRoute(false, "/api/orders"), "either");
});

test("a pattern's * matches across folders; a ! pattern wins over a plain one", () => {
  const rule = ["/api/*", "!/api/docs/*"];
  assert.equal(firstRoute(rule, "/api/orders/7"), "worker");
  assert.equal(firstRoute(rule, "/api/docs/intro"), "assets");
  assert.equal(firstRoute(rule, "/about"), "either");
  assert.equal(firstRoute(["/a.b"], "/aXb"), "either");
});
