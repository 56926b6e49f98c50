// @ts-check
/**
 * The drives a plan can name, by `scenario.drive.kind`: those of the binding records (the
 * queue consumer's deliveries) and the drives of inbound events that are no binding (http,
 * websocket, cron, rpc). Each is `{method, drive}`: the Worker handler it calls and the
 * function that delivers the events; the rpc drive's `handler` makes the call itself (the
 * entrypoint and its methods are the drive's to name), refusing what the Worker lacks.
 */

import { RECORDS } from "./bindings/index.mjs";
import { driveCron } from "./cron.mjs";
import { driveHttp } from "./http.mjs";
import { driveRpc, rpcHandler } from "./rpc.mjs";
import { driveWebSocket } from "./websocket.mjs";

/** @type {Readonly<Record<string, {method: string, handler?: (run: import("./run.mjs").Run, drive: any) => any, drive: (run: import("./run.mjs").Run, drive: any, handler: any) => Promise<void>}>>} */
export const DRIVES = Object.freeze(Object.assign({}, ...RECORDS.map((record) => record.drives ?? {}), {
  http: { method: "fetch", drive: driveHttp },
  websocket: { method: "fetch", drive: driveWebSocket },
  cron: { method: "scheduled", drive: driveCron },
  rpc: { method: "rpc", handler: rpcHandler, drive: driveRpc },
}));
