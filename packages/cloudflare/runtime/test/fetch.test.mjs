// @ts-check
/** The pure parts of externals and the http caller: host patterns, scripted replies, the caller's policy. */

import assert from "node:assert/strict";
import test from "node:test";

import { externalFor, hostMatches, recordedBody, replyFor, responseOf } from "../fetch.mjs";
import { buildRequest, callerPolicy, resendDelay, statusFailed, targetPath } from "../http.mjs";

test("a host matches its exact name or a *.suffix pattern of its subdomains", () => {
  assert.equal(hostMatches("api.pay.example", "API.pay.example"), true);
  assert.equal(hostMatches("api.pay.example", "pay.example"), false);
  assert.equal(hostMatches("*.pay.example", "api.pay.example"), true);
  assert.equal(hostMatches("*.pay.example", "a.b.pay.example"), true);
  assert.equal(hostMatches("*.pay.example", "pay.example"), false);
  assert.equal(hostMatches("*.pay.example", "evilpay.example"), false);
  const externals = [{ name: "a", host: "a.example" }, { name: "b", host: "*.example" }];
  assert.equal(externalFor(externals, "a.example")?.name, "a");
  assert.equal(externalFor(externals, "x.example")?.name, "b");
  assert.equal(externalFor(externals, "example.org"), null);
});

test("a reply is the first scripted response with the method and path; none scripted is 200 and empty", () => {
  const external = { name: "pay", host: "p.example", responses: [{ method: "POST", path: "/charges", status: 201, body: { id: 1 } }, { method: "POST", path: "/charges", status: 500 }] };
  assert.deepEqual(replyFor(external, "POST", "/charges"), { status: 201, headers: {}, body: { id: 1 } });
  assert.equal(replyFor(external, "GET", "/charges"), null);
  assert.equal(replyFor(external, "POST", "/refunds"), null);
  assert.deepEqual(replyFor({ name: "x", host: "x.example" }, "DELETE", "/any"), { status: 200, headers: {}, body: null });
});

test("recorded bodies: JSON when declared or shaped so, else text; no body is null", async () => {
  assert.deepEqual(recordedBody('{"orderId":"o-1"}', "text/plain"), { orderId: "o-1" });
  assert.deepEqual(recordedBody("7", "application/json"), 7);
  assert.equal(recordedBody("7", "text/plain"), "7");
  assert.equal(recordedBody("{not json", "application/json"), "{not json");
  assert.equal(recordedBody(null, ""), null);
  assert.equal(recordedBody("", "application/json"), "");
  const json = responseOf({ status: 200, headers: {}, body: { id: "ch-1" } });
  assert.equal(json.headers.get("content-type"), "application/json");
  assert.deepEqual(await json.json(), { id: "ch-1" });
  assert.equal(await responseOf({ status: 204, headers: {}, body: "dropped" }).text(), "");
});

test("the caller's policy: the plan carries all of it, what counts as failed, the delays", () => {
  // The plan carries the whole policy (eutaxy.cloudflare.http writes it): the drive fills in nothing.
  assert.throws(() => callerPolicy(undefined), { name: "EutaxyInternalError", message: /carries no caller/ });
  assert.throws(() => callerPolicy({ retries: 3, retryOn: "5xx" }), { name: "EutaxyInternalError", message: /delaysMs/ });
  assert.throws(() => callerPolicy({ retries: 3, retryOn: "4xx", delaysMs: [], deadlineMs: null }), { name: "EutaxyInternalError", message: /retryOn/ });
  const webhook = callerPolicy({ retries: 3, retryOn: "non-2xx", delaysMs: [100, 1000], deadlineMs: 5000 });
  assert.deepEqual([200, 201, 302, 404, 500].map((s) => statusFailed(webhook, s)), [false, false, true, true, true]);
  const fivexx = callerPolicy({ retries: 3, retryOn: "5xx", delaysMs: [], deadlineMs: null });
  assert.deepEqual([200, 302, 404, 500, 503].map((s) => statusFailed(fivexx, s)), [false, false, false, true, true]);
  assert.deepEqual([1, 2, 3, 4].map((n) => resendDelay(webhook, n)), [100, 1000, 1000, 1000]);
  assert.equal(resendDelay(fivexx, 2), 0);
});

test("requests: the target path drops the query; a JSON body is sent as JSON", async () => {
  assert.equal(targetPath("/orders?x=1#f"), "/orders");
  const base = { id: "req-1", headers: {}, attempts: 0, due: 0 };
  const json = buildRequest({ ...base, method: "POST", path: "/orders?x=1", body: { a: 1 } });
  assert.equal(new URL(json.url).pathname + new URL(json.url).search, "/orders?x=1");
  assert.equal(json.headers.get("content-type"), "application/json");
  assert.equal(await json.text(), '{"a":1}');
  const text = buildRequest({ ...base, method: "PUT", path: "/n", headers: { "content-type": "text/csv" }, body: "a,b" });
  assert.equal(text.headers.get("content-type"), "text/csv");
  assert.equal(await text.text(), "a,b");
  assert.equal(buildRequest({ ...base, method: "GET", path: "/", body: null }).body, null);
});
