// @ts-check
/**
 * The static assets record: the config's `assets` (its kind's entry in the runtime config, the
 * section as Python's record, eutaxy/cloudflare/bindings/assets.py, sends it in `section`;
 * `assetsOf` reads it), served by Miniflare's assets (its asset worker, the one Cloudflare runs
 * in front of the Worker) from the assets directory.
 *
 * The Worker's assets binding (`userBinding`, when the config names one) is proxied: each
 * `fetch` is one `io` effect point at `Assets:<binding>`, op `fetch`, with no faults (static
 * files are no effect a retry changes), performed on the real binding; its payload is
 * `{args: {method, path}}` and the result `{status, ok, contentType}`. The response's body is
 * read inside the point and handed back as a new Response of the same bytes, so no I/O of
 * the point's runs after it.
 *
 * What answers an inbound request, the assets or the Worker (`assetsAnswer`, which the http
 * drive asks before each request reaches the Worker), is the router's rule as Cloudflare
 * documents it: `run_worker_first = true` sends every request to the Worker; of a list of
 * patterns (`*` matching anything, `/` included), a `!` pattern matching the path sends it to
 * the assets, else a plain one to the Worker; else the assets answer when their asset worker
 * can serve the request (a file for the path by `html_handling`, or `not_found_handling`'s
 * page), and the Worker does otherwise.
 */

import { NO_FAULTS, effectPoint } from "../effects.mjs";

/** The assets' binding when the Worker has none of its own (the http drive asks it); never shown to the Worker. */
export const ASSETS_BINDING = "__EUTAXY_ASSETS";

/** Statuses whose Response has no body. */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** @param {string} pattern @param {string} path */
function matches(pattern, path) {
  const source = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*");
  return new RegExp(`^${source}$`).test(path);
}

/**
 * Where `run_worker_first` sends a path: "worker", "assets", or "either" (the asset worker decides).
 * @param {boolean | string[]} rule @param {string} path
 * @returns {"worker" | "assets" | "either"}
 */
export function firstRoute(rule, path) {
  if (rule === true) return "worker";
  if (rule === false) return "either";
  if (rule.some((pattern) => pattern.startsWith("!") && matches(pattern.slice(1), path))) return "assets";
  if (rule.some((pattern) => !pattern.startsWith("!") && matches(pattern, path))) return "worker";
  return "either";
}

/** A Response of the same status, headers and bytes, its body already read. @param {Response} response */
async function settled(response) {
  const body = NULL_BODY_STATUSES.has(response.status) ? null : await response.arrayBuffer();
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * The assets' answer to an inbound request, read whole, or null when the Worker answers it.
 * @param {any} config the assets entry @param {Record<string, any>} realEnv
 * @param {Request} request @param {string} path the request's path, without its query
 * @returns {Promise<Response | null>}
 */
export async function assetsAnswer(config, realEnv, request, path) {
  const route = firstRoute(config.runWorkerFirst, path);
  if (route === "worker") return null;
  const assets = realEnv[config.binding];
  if (route === "either" && !(await assets.unstable_canFetch(new Request(request.url, { method: request.method, headers: request.headers })))) return null;
  return settled(await assets.fetch(request));
}

/**
 * The config's assets as the http drive reads them, null without an `assets` section: the
 * binding it asks (the Worker's own, else ASSETS_BINDING, hidden from the Worker) and
 * run_worker_first.
 * @param {any} config the runtime config @returns {{binding: string, runWorkerFirst: boolean | string[]} | null}
 */
export function assetsOf(config) {
  const settings = config.kinds?.assets?.section ?? null;
  return settings === null ? null : { binding: settings.binding ?? ASSETS_BINDING, runWorkerFirst: settings.runWorkerFirst };
}

/** @type {import("./record.mjs").BindingRecord} */
export const assets = {
  kind: "assets",
  proxy: (run, inv, name, real) => ({
    /** @param {RequestInfo | URL} input @param {RequestInit} [init] */
    fetch(input, init) {
      const request = new Request(input, init);
      const url = new URL(request.url);
      return effectPoint(run, inv, {
        kind: "io",
        target: `Assets:${name}`,
        op: "fetch",
        args: { method: request.method, path: url.pathname + url.search },
        ladder: NO_FAULTS,
        perform: async () => settled(await real.fetch(request)),
        summarize: (/** @type {Response} */ response) => ({ status: response.status, ok: response.ok, contentType: response.headers.get("content-type") }),
      });
    },
  }),
};
