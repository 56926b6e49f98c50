// @ts-check
/** The pure parts of externals and the http caller: host patterns, scripted replies, the caller's policy. */

import assert from "node:assert/strict";
import test from "node:test";

import { compileRoutes, externalFor, hostMatches, recordedBody, replyAt, routeFor, responseOf } from "../fetch.mjs";
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

/** The route a request takes, as its index, "default" or null. @param {any} external @param {string} method @param {string} url */
function routed(external, method, url) {
  const route = routeFor(compileRoutes(external), method, new URL(url));
  return route === null || route === "default" ? route : route.index;
}

test("a route is the first declared that matches the method, the path and the query; none scripted is 200 and empty", () => {
  const external = { name: "pay", host: "p.example", responses: [{ method: "POST", path: "/charges", status: 201, body: { id: 1 } }, { method: "POST", path: "/charges", status: 500 }] };
  assert.equal(routed(external, "POST", "https://p.example/charges"), 0);
  assert.equal(routed(external, "GET", "https://p.example/charges"), null);
  assert.equal(routed(external, "POST", "https://p.example/refunds"), null);
  assert.deepEqual(replyAt(compileRoutes(external)[0], 0), { status: 201, headers: {}, body: { id: 1 } });
  assert.equal(routed({ name: "x", host: "x.example" }, "DELETE", "https://x.example/any"), "default");
  const api = {
    name: "api",
    host: "a.example",
    responses: [
      { method: "GET", path: "/v1/items", query: { cursor: "c2" }, status: 200 },
      { method: "GET", path: "/v1/items", status: 200 },
      { method: "GET", path: "/v1/items*", status: 200 },
      { method: "GET", pattern: "/v2/orders/[0-9]+", status: 200 },
    ],
  };
  assert.equal(routed(api, "GET", "https://a.example/v1/items?cursor=c2&limit=5"), 0, "the query route declared first wins");
  assert.equal(routed(api, "GET", "https://a.example/v1/items?cursor=c3"), 1, "another cursor falls through to the exact path");
  assert.equal(routed(api, "GET", "https://a.example/v1/items/7"), 2, "a prefix takes what starts with it");
  assert.equal(routed(api, "GET", "https://a.example/v1/itemsX"), 2, "a prefix is a string prefix");
  assert.equal(routed(api, "GET", "https://a.example/v2/orders/12"), 3);
  assert.equal(routed(api, "GET", "https://a.example/v2/orders/12/lines"), null, "a pattern matches the whole path");
  assert.equal(routed(api, "POST", "https://a.example/v1/items"), null);
});

test("a sequence of replies is answered in turn, the last repeating; a single reply always", () => {
  const [retry, single] = compileRoutes({
    name: "api",
    host: "a.example",
    responses: [
      { method: "GET", path: "/v1/items", replies: [{ status: 429, headers: { "Retry-After": "2" } }, { status: 200, body: { items: [1] } }] },
      { method: "GET", path: "/v1/other", status: 503 },
    ],
  });
  assert.deepEqual([0, 1, 2, 9].map((n) => replyAt(retry, n)), [
    { status: 429, headers: { "Retry-After": "2" }, body: null },
    { status: 200, headers: {}, body: { items: [1] } },
    { status: 200, headers: {}, body: { items: [1] } },
    { status: 200, headers: {}, body: { items: [1] } },
  ]);
  assert.deepEqual(replyAt(single, 5), { status: 503, headers: {}, body: null });
});

test("a pattern JavaScript cannot compile is the scenario's mistake, named", () => {
  assert.throws(() => compileRoutes({ name: "api", host: "a.example", responses: [{ method: "GET", pattern: "/a(+" }] }), {
    name: "UserFacingError",
    message: /external\("api"\): responses\[0\]: pattern must be a JavaScript regular expression, got "\/a\(\+"/,
  });
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
