// @ts-check
/**
 * Core decisions: the spec module's exports are wrapped at bundle time, and every call
 * from outside the module is a `Core:<function>` decision of the invocation that made it.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { FIXTURES, HostProcess, useHost } from "./helpers.mjs";
import { concurrentLoad, concurrentPlan } from "./concurrent_helpers.mjs";

const FIXTURE = path.join(FIXTURES, "concurrent");

const host = useHost(concurrentLoad());

/**
 * The source of a call in a fixture file: the one line holding `line`, the column of `call` in it (from 1).
 * @param {string} file @param {string} line @param {string} call
 */
function callIn(file, line, call) {
  const lines = readFileSync(path.join(FIXTURE, file), "utf8").split("\n");
  const found = lines.flatMap((text, index) => (text.includes(line) ? [index] : []));
  assert.equal(found.length, 1, `one line of ${file} has ${line}`);
  const [index] = found;
  return { file, line: index + 1, column: lines[index].indexOf(call, lines[index].indexOf(line)) + 1 };
}

/** @param {any[]} effects */
function decisions(effects) {
  return effects.filter((e) => e.kind === "decision");
}

test("a call from outside the module is a decision with its args and result; a call inside it is not", async () => {
  const result = await host.runCompleted(concurrentPlan({ concurrency: 1, events: [{ id: "msg-1", body: { key: "k", amount: 5 } }] }));
  const found = decisions(result.effects);
  // decideTotal calls add() inside domain.ts: only the Worker's two calls are recorded.
  assert.deepEqual(found.map((e) => e.target), ["Core:decideTotal", "Core:describe"]);
  assert.deepEqual(found[0], {
    target: "Core:decideTotal", op: "decide", kind: "decision", payload: { args: [0, 5], result: { total: 5 } },
    // The read was effect point 0; the decision carries the next point's ordinal.
    invocation: "msg-1#1", ordinal: 1, time: 1767225600001,
    // The Worker's line that called it, not the recording wrapper's.
    source: callIn("worker.ts", ": decideTotal(seen", "decideTotal("),
  });
  assert.deepEqual(found[1].payload, { args: [5], result: "total 5" });
  assert.deepEqual(found[1].source, callIn("worker.ts", "describe(decided.total)", "describe("));
});

test("arguments and results JSON cannot carry are recorded exactly beside their canonical reading", async () => {
  const result = await host.runCompleted(concurrentPlan({ concurrency: 1, events: [{ id: "msg-1", body: { key: "k", amount: 5, exact: true } }] }));
  const [found] = decisions(result.effects).filter((e) => e.target === "Core:decideExactly");
  assert.deepEqual(found.payload, {
    // The log's canonical reading, as before: a bigint argument makes the list a string.
    args: "0,12345678901234567890,", result: "[object Object]",
    argsExact: [{ $: "number", v: "-0" }, { $: "bigint", v: "12345678901234567890" }, { $: "undefined" }],
    resultExact: { big: { $: "bigint", v: "12345678901234567891" }, sign: { $: "number", v: "-0" }, gone: { $: "undefined" } },
  });
  // The plain calls of the same delivery carry no exact reading: nothing was lost.
  assert.deepEqual(decisions(result.effects).find((e) => e.target === "Core:decideTotal").payload, { args: [0, 5], result: { total: 5 } });
});

test("a call that threw is not a decision", async () => {
  const result = await host.runCompleted(concurrentPlan({ concurrency: 1, events: [{ id: "msg-1", body: { key: "k", amount: -1 } }] }));
  assert.deepEqual(decisions(result.effects), []);
  assert.ok(result.effects.some((/** @type {any} */ e) => e.op === "dead_letter"));
});

test("a core function returning a promise makes the run UNSUPPORTED (async_core)", async () => {
  const result = await host.run(concurrentPlan({ events: [{ id: "msg-1", body: { key: "k", amount: 1, later: true } }] }));
  assert.equal(result.end.cause, "async_core");
  assert.match(result.end.detail, /decideLater/);
});

test("decisions of concurrent invocations name the invocation that made them", async () => {
  const result = await host.run(concurrentPlan({ prefix: [0, 1, 1, 0] }));
  const found = decisions(result.effects).filter((e) => e.target === "Core:decideTotal");
  assert.deepEqual(found.map((e) => [e.invocation, e.payload.args[1]]).sort(), [["msg-1#1", 600], ["msg-2#1", 400]]);
});

test("one function name exported by two spec modules is a user error at load", async () => {
  const other = new HostProcess();
  try {
    const answer = await other.request(concurrentLoad({ specs: [path.join(FIXTURE, "domain.ts"), path.join(FIXTURE, "clash.ts")] }));
    assert.equal(answer.ok, false);
    assert.equal(answer.user, true);
    assert.match(answer.error, /decideTotal/);
  } finally {
    await other.close();
  }
});
