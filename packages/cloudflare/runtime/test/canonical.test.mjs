// @ts-check
/**
 * Snapshot rows are sorted by canonical JSON here and compared by it in Python, so the
 * runtime's text must be core's `to_json` text for every plain value a row or payload holds.
 */

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import test from "node:test";

import { toJson } from "../canonical.mjs";
import { REPO } from "./helpers.mjs";

const SAMPLES = [
  null, true, false, 0, -0, 1, -17, 2 ** 53, 1.5, 0.1, 1e21, 1e-7, 123456789.125, "", "plain", "quote \" and \\ and \n\t",
  "non-ASCII é 日本 🙂", "\u0001\u001f", [], [1, [2, [3]]], {}, { b: 1, a: 2, B: 3, _: 4 }, { "é": 1, "z": 2, "🙂": 3, "\uffff": 4 },
  { nested: { y: [1, { x: null }], a: "s" } }, [{ order_id: "o-1", amount_cents: 1200, id: 1 }],
];

test("plain values are written as core's to_json writes them", { skip: hasPython() ? false : "python3 with eutaxy.core is not available" }, () => {
  const env = { ...process.env, PYTHONPATH: [path.join(REPO, "packages/spec/src"), path.join(REPO, "packages/core/src")].join(":") };
  const source = "import json,sys\nfrom eutaxy.core.canonical import to_json\nfor v in json.load(sys.stdin): print(to_json(v))";
  const expected = execFileSync("python3", ["-c", source], { env, input: JSON.stringify(SAMPLES), encoding: "utf8" }).trimEnd().split("\n");
  assert.deepEqual(SAMPLES.map(toJson), expected);
});

test("non-JSON numbers, bytes, dates and cycles take their fixed forms", () => {
  assert.equal(toJson([NaN, Infinity, -Infinity]), '["NaN","Infinity","-Infinity"]');
  assert.equal(toJson(new Uint8Array([104, 105])), '"aGk="');
  assert.equal(toJson(new Date(1767225600000)), '"2026-01-01T00:00:00.000Z"');
  /** @type {any} */
  const cyclic = { a: 1 };
  cyclic.self = cyclic;
  assert.equal(toJson(cyclic), '{"a":1,"self":"<nested>"}');
  const shared = { x: 1 };
  assert.equal(toJson([shared, shared]), '[{"x":1},{"x":1}]');
});

function hasPython() {
  try {
    const env = { ...process.env, PYTHONPATH: path.join(REPO, "packages/core/src") + ":" + path.join(REPO, "packages/spec/src") };
    execFileSync("python3", ["-c", "import eutaxy.core.canonical"], { env, stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
