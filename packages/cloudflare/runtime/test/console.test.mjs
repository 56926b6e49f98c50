// @ts-check
/**
 * The console capture writes each call as one deterministic line under the point its
 * invocation last opened, keeps at most LINES_MAX lines with one `capped` line after them,
 * and formats its arguments the same way on every machine. Checked in Node on the capture
 * alone; the Worker-level behaviour is checked through the host in
 * packages/cloudflare/tests/test_console_workerd.py.
 */

import assert from "node:assert/strict";
import test from "node:test";

import { CAPPED_LEVEL, ConsoleCapture, LINES_MAX, TEXT_CHARS_MAX, formatArgs, render } from "../console.mjs";

test("strings are kept as they are and other values by a stable rendering", () => {
  assert.equal(formatArgs(["not configured:", "API_KEY"]), "not configured: API_KEY");
  assert.equal(formatArgs([{ b: 1, a: [1, "x"] }]), '{"a":[1,"x"],"b":1}');
  assert.equal(formatArgs([new TypeError("bad input"), 3, 10n, undefined, null, true]), "TypeError: bad input 3 10n undefined null true");
  assert.equal(render(new Set([2, 1])), "[1,2]");
  assert.equal(render(function named() {}), "[function named]");
  assert.equal(render(-0), "-0");
  const cyclic = /** @type {any} */ ({ name: "c" });
  cyclic.self = cyclic;
  assert.equal(render(cyclic), '{"name":"c","self":"<nested>"}');
});

test("a leading format string takes its arguments as Node's console does", () => {
  assert.equal(formatArgs(["%s has %d items (%i%%)", "cart", 3.5, 42.9]), "cart has 3.5 items (42%)");
  assert.equal(formatArgs(["%o and %j", { a: 1 }, [2]]), '{"a":1} and [2]');
  assert.equal(formatArgs(["%c styled", "color: red"]), " styled");
  assert.equal(formatArgs(["%s missing %s", "one"]), "one missing %s");
  assert.equal(formatArgs(["%s", "a", "extra", { k: 1 }]), 'a extra {"k":1}');
});

test("each line names its invocation, the last point it opened and the virtual time", () => {
  let now = 1000;
  /** @type {{id: string, nextOrdinal: number} | null} */
  let current = null;
  const capture = new ConsoleCapture({ now: () => now, current: () => current });
  capture.write("log", ["outside"]);
  current = { id: "req-1#1", nextOrdinal: 0 };
  capture.write("info", ["before any point"]);
  current.nextOrdinal = 2;
  now = 1002;
  capture.write("error", ["after point 1"]);
  assert.deepEqual(capture.result(), [
    { invocation: null, ordinal: null, time: 1000, level: "log", text: "outside" },
    { invocation: "req-1#1", ordinal: null, time: 1000, level: "info", text: "before any point" },
    { invocation: "req-1#1", ordinal: 1, time: 1002, level: "error", text: "after point 1" },
  ]);
});

test("a run keeps LINES_MAX lines, then one capped line counting the rest; long lines are cut", () => {
  const capture = new ConsoleCapture({ now: () => 7, current: () => null });
  for (let i = 0; i < LINES_MAX + 5; i++) capture.write("log", [`line ${i}`]);
  capture.write("log", ["x".repeat(TEXT_CHARS_MAX + 10)]);
  const lines = capture.result();
  assert.equal(lines.length, LINES_MAX + 1);
  assert.equal(lines[LINES_MAX - 1].text, `line ${LINES_MAX - 1}`);
  assert.deepEqual(lines[LINES_MAX], { invocation: null, ordinal: null, time: 7, level: CAPPED_LEVEL, text: `6 more console lines were not kept (a run keeps ${LINES_MAX})` });
  const short = new ConsoleCapture({ now: () => 0, current: () => null });
  short.write("warn", ["y".repeat(TEXT_CHARS_MAX + 10)]);
  assert.equal(short.result()[0].text, `${"y".repeat(TEXT_CHARS_MAX)}... (10 more characters)`);
});

test("the methods replace console.log, info, warn, error and debug", () => {
  const capture = new ConsoleCapture({ now: () => 0, current: () => null });
  const methods = capture.methods();
  assert.deepEqual(methods.map(([object, name]) => [object === console, name]), ["log", "info", "warn", "error", "debug"].map((name) => [true, name]));
  /** @type {any} */ (methods[3][2])("boom", 1);
  assert.deepEqual(capture.result(), [{ invocation: null, ordinal: null, time: 0, level: "error", text: "boom 1" }]);
});
