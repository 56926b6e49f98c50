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
 * callback has settled, so the second reads what the first wrote. And work after an answer
 * (after_work.mjs: in a concurrent run its effects are turns inside the object): while the first
 * call's work awaits its fetch, workerd lets the second call in, and its work too.
 */

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import path from "node:path";
import test from "node:test";

import { NODE_MODULES } from "./helpers.mjs";

const { Miniflare } = createRequire(path.join(NODE_MODULES, "eutaxy-test.js"))("miniflare");

/** How long the outbound service waits (real time) for the second fetch before it answers anyway. */
const BOTH_ARRIVE_MS = 20_000;

/**
 * Miniflare running `script`, a Worker with its WALLET object, whose outbound fetches
 * `outboundService` answers.
 * @param {string} script @param {(request: Request) => Promise<Response>} outboundService
 */
function walletWorker(script, outboundService) {
  return new Miniflare({
    modules: true,
    script,
    compatibilityDate: "2026-01-01",
    durableObjects: { WALLET: { className: "Wallet", useSQLite: true } },
    outboundService,
  });
}

/**
 * An outbound service that records each fetch's amount in `arrived` and holds every answer
 * until two fetches have arrived. Bounded: it answers anyway after BOTH_ARRIVE_MS, so a workerd
 * that held the second call fails the test, not hangs it.
 * @param {string[]} arrived
 */
function holdUntilBothArrive(arrived) {
  /** @type {() => void} */
  let bothArrived = () => {};
  const both = new Promise((resolve) => { bothArrived = () => resolve(undefined); });
  return async (/** @type {Request} */ request) => {
    arrived.push(new URL(request.url).searchParams.get("amount") ?? "");
    if (arrived.length === 2) bothArrived();
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    await Promise.race([both, new Promise((resolve) => { timer = setTimeout(resolve, BOTH_ARRIVE_MS); })]);
    clearTimeout(timer);
    return new Response("authorized");
  };
}

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
  const mf = walletWorker(WALLET, holdUntilBothArrive(arrived));
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
  const mf = walletWorker(WALLET, async () => new Response("authorized"));
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

const WALLET_AFTER = `
import { DurableObject } from "cloudflare:workers";
export class Wallet extends DurableObject {
  async spendLater(amount) {
    this.ctx.waitUntil(this.settle(amount));
    return "accepted";
  }
  async settle(amount) {
    const balance = (await this.ctx.storage.get("balance")) ?? 10;
    await fetch("https://payments.example/authorize?amount=" + amount);
    await this.ctx.storage.put("balance", balance - amount);
    await this.ctx.storage.put("settled:" + amount, true);
  }
  async state() {
    return { balance: await this.ctx.storage.get("balance"), settled: (await this.ctx.storage.list({ prefix: "settled:" })).size };
  }
}
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const wallet = env.WALLET.getByName("alice");
    if (url.pathname === "/state") return Response.json(await wallet.state());
    return Response.json(await wallet.spendLater(Number(url.searchParams.get("amount"))));
  },
};
`;

/** How many times the test asks for the wallet's state before it gives up, and how long it waits between. */
const STATE_POLLS = 200;
const STATE_POLL_MS = 50;

test("raw workerd lets a second call enter an object while the first call's work after its answer awaits its fetch", async () => {
  /** @type {string[]} */
  const arrived = [];
  const mf = walletWorker(WALLET_AFTER, holdUntilBothArrive(arrived));
  try {
    // The first spend answers; its work goes on and waits at its fetch, which the outbound
    // service holds until the second's arrives: the second spend enters the object meanwhile.
    assert.equal(await (await mf.dispatchFetch("https://wallet.example/?amount=6")).json(), "accepted");
    assert.equal(await (await mf.dispatchFetch("https://wallet.example/?amount=7")).json(), "accepted");
    /** @type {{balance: number, settled: number}} */
    let state = { balance: 10, settled: 0 };
    for (let poll = 0; poll < STATE_POLLS && state.settled < 2; poll++) {
      await new Promise((resolve) => setTimeout(resolve, STATE_POLL_MS));
      state = await (await mf.dispatchFetch("https://wallet.example/state")).json();
    }
    assert.deepEqual([...arrived].sort(), ["6", "7"], "both works reached their fetch");
    assert.equal(state.settled, 2, "both works settled");
    // Both works wrote from the balance both read (10): the last write wins, one spend is lost.
    assert.ok(state.balance === 4 || state.balance === 3, `balance ${state.balance}`);
  } finally {
    await mf.dispose();
  }
});
