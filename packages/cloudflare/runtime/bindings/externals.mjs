// @ts-check
/**
 * The outbound fetch record: the scenario's declared externals answer the run's global
 * `fetch` (fetch.mjs), each request an `io` effect point at `Fetch:<external>`. What an
 * external remembers (the replies committed per dedupe key) is made fresh for every run.
 */

import { makeFetch } from "../fetch.mjs";

/** @type {import("./record.mjs").BindingRecord} */
export const externals = {
  kind: "externals",
  globals: (run) => [[globalThis, "fetch", makeFetch(run)]],
};
