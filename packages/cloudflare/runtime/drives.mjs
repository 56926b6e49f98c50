// @ts-check
/**
 * The drives a plan can name, by `scenario.drive.kind`: those of the binding records (the
 * queue consumer's deliveries) and the drives of inbound events that are no binding (http,
 * websocket, cron). Each is
 * `{method, drive}`: the Worker handler it calls and the function that delivers the events.
 */

import { RECORDS } from "./bindings/index.mjs";
import { driveCron } from "./cron.mjs";
import { driveHttp } from "./http.mjs";
import { driveWebSocket } from "./websocket.mjs";

/** @type {Readonly<Record<string, {method: string, drive: (run: import("./run.mjs").Run, drive: any, handler: any) => Promise<void>}>>} */
export const DRIVES = Object.freeze(Object.assign({}, ...RECORDS.map((record) => record.drives ?? {}), {
  http: { method: "fetch", drive: driveHttp },
  websocket: { method: "fetch", drive: driveWebSocket },
  cron: { method: "scheduled", drive: driveCron },
}));
