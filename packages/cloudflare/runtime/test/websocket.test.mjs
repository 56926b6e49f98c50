// @ts-check
import assert from "node:assert/strict";
import { test } from "node:test";

import { frameLogged } from "../websocket.mjs";

test("a text frame is logged as its text, a binary frame as bytes in the log's encoding", () => {
  assert.equal(frameLogged("hello"), "hello");
  assert.deepEqual(frameLogged(new Uint8Array([0, 255, 104]).buffer), { $: "bytes", v: "AP9o" });
  assert.deepEqual(frameLogged(new Uint8Array([1, 2, 3, 4]).subarray(1, 3)), { $: "bytes", v: "AgM=" });
});
