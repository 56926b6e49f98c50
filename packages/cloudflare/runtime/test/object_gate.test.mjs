// @ts-check
/**
 * The order the model claims for calls entering one Durable Object (bindings/durable_object.mjs,
 * effects.mjs: the object's outbound I/O during a call is a turn where the next call may enter),
 * checked against raw workerd with nothing of Eutaxy's in between: a wallet whose spend reads
 * its balance, awaits an outbound fetch and writes the balance. Miniflare's outbound service
 * holds each fetch until both have arrived, so the test passes only if workerd delivered the
 * second call into the object while the first awaited its fetch (its input gate open), and
 * then both write from the balance both read: the lost update the corpus's
 * wallet-lost-update finds in the model. And the spend inside blockConcurrencyWhile, whose
 * effects the model makes no turns: workerd holds the second call at the gate until the first's
 * callback has settled, so the second reads what the first wrote.
 */

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import path from "node:path";
import test from "node:test";

import { NODE_MODULES } from "./helpers.mjs";

const { Miniflare } = createRequire(path.join(NODE_MODULES, "eutaxy-test.js"))("miniflare");

/** How long the outbound service waits (real time) for the second fetch before it answers anyway. */
const BOTH_ARRIVE_MS = 20_000;

const WALLET = `
import { DurableObject } from "cloudflare:workers";
export class Wallet extends DurableObject {
  async spendHeld(amount) {
    return await this.ctx.blockConcurrencyWhile(() => this.spend(amount));
  }
  async spend(amount) {
    const balance = (await this.ctx.storage.get("balance")) ?? 10;
    await fetch("https://payments.example/authorize?amount=" + amount);
    await this.ctx.storage.put("balance", balance - amount);
    return balance - amount;
  }
}
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const amount = Number(url.searchParams.get("amount"));
    const wallet = env.WALLET.getByName("alice");
    return Response.json(url.pathname === "/held" ? await wallet.spendHeld(amount) : await wallet.spend(amount));
  },
};
`;

test("raw workerd delivers a second call into an object while the first awaits its outbound fetch", async () => {
  /** @type {string[]} */
  const arrived = [];
  /** @type {() => void} */
  let bothArrived = () => {};
  const both = new Promise((resolve) => { bothArrived = () => resolve(undefined); });
  const mf = new Miniflare({
    modules: true,
    script: WALLET,
    compatibilityDate: "2026-01-01",
    durableObjects: { WALLET: { className: "Wallet", useSQLite: true } },
    outboundService: async (/** @type {Request} */ request) => {
      arrived.push(new URL(request.url).searchParams.get("amount") ?? "");
      if (arrived.length === 2) bothArrived();
      // Bounded: answer anyway after BOTH_ARRIVE_MS, so a workerd that held the second call fails the test, not hangs it.
      /** @type {ReturnType<typeof setTimeout> | undefined} */
      let timer;
      await Promise.race([both, new Promise((resolve) => { timer = setTimeout(resolve, BOTH_ARRIVE_MS); })]);
      clearTimeout(timer);
      return new Response("authorized");
    },
  });
  try {
    const first = mf.dispatchFetch("https://wallet.example/?amount=6");
    const second = mf.dispatchFetch("https://wallet.example/?amount=7");
    const answers = await Promise.all([first, second].map(async (response) => (await response).json()));
    assert.deepEqual([...arrived].sort(), ["6", "7"], "both spends reached their fetch");
    // Both wrote from the balance both read (10): each answer is 10 less its own amount.
    assert.deepEqual(answers, [4, 3]);
  } finally {
    await mf.dispose();
  }
});

test("raw workerd holds a second call at the gate while the first runs inside blockConcurrencyWhile", async () => {
  const mf = new Miniflare({
    modules: true,
    script: WALLET,
    compatibilityDate: "2026-01-01",
    durableObjects: { WALLET: { className: "Wallet", useSQLite: true } },
    outboundService: async () => new Response("authorized"),
  });
  try {
    const first = mf.dispatchFetch("https://wallet.example/held?amount=6");
    const second = mf.dispatchFetch("https://wallet.example/held?amount=7");
    const answers = await Promise.all([first, second].map(async (response) => (await response).json()));
    // Whichever entered second read the balance the other wrote, whatever the fetches' timing:
    // 6 then 7 answers [4, -3]; 7 then 6 answers [-3, 3].
    assert.ok(JSON.stringify(answers) === "[4,-3]" || JSON.stringify(answers) === "[-3,3]", `answers ${JSON.stringify(answers)}`);
  } finally {
    await mf.dispose();
  }
});
