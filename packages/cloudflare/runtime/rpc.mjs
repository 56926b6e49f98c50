// @ts-check
/**
 * The rpc drive: a scenario's calls sent to the methods of a WorkerEntrypoint, by the caller
 * the drive declares.
 *
 * The entrypoint is the Worker's default export, or the named export the drive's `entrypoint`
 * gives; either must be a class (one extending WorkerEntrypoint), whose methods are what RPC
 * reaches. Each call is an event `{id, method, args}` (JSON arguments), and each attempt is one
 * invocation `<call id>#<attempt>` that constructs the entrypoint anew with a fresh
 * ExecutionContext and the run's env, as the runtime does per call, and calls the method.
 *
 * The answer is the response point, target `Rpc:<method>` (`Rpc:<Entrypoint>.<method>` for a
 * named export), op `response`, payload `{args: {callId, method, args}, result}`: `{ok: true,
 * value}` for a value returned, `{ok: false, error: {name, message}}` for an exception, as it
 * reaches the caller over RPC (bindings/service.mjs `thrownAcross`, the caller taken to have the
 * Worker's enhanced_error_serialization: without it a built-in class's name and message as
 * thrown, any other as `Error`, message `<name>: <message>`, a value that is not an Error as an
 * `Error` of its text; with it an error's own name and message). Its ladder is
 * the http response's: `crash_before` (the caller never got the answer), and `ambiguous` when
 * the caller declares a deadline. A value that is not plain data (a stub, a function, a
 * stream, a class instance) makes the run UNSUPPORTED (`not_plain_data`): calls on it would
 * bypass the proxies.
 *
 * Cloudflare never retries an RPC call, so the declared caller decides, as the http drive's
 * does (http.mjs `driveCalls`, its resends, delays, deadline, cuts and `gave_up` with
 * `{callId, attempts}`), without `retryOn`: an attempt failed when the call threw, got no
 * answer (a crash, crash_before at the response), took the ambiguous outcome, or answered past
 * the deadline.
 */

import { assert } from "./assert.mjs";
import { effectPoint, ladderNamed } from "./effects.mjs";
import { UserFacingError } from "./errors.mjs";
import { timedEvents } from "./event_time.mjs";
import { callerPolicy, driveCalls } from "./http.mjs";
import { realConsole } from "./patch.mjs";
import { logged, read } from "./values.mjs";
import { carriedFields } from "./bindings/service.mjs";

/** @typedef {{id: string, method: string, args: unknown[], attempts: number, due: number}} PendingCall */

/**
 * The entrypoint class an rpc drive calls: the default export (`name` null) or the named
 * export; a missing export, one that is not a class, or a method it lacks is the user's to fix.
 * @param {any} userModule @param {string | null} name @param {string[]} methods
 * @returns {new (ctx: object, env: object) => any}
 */
export function entrypointOf(userModule, name, methods) {
  const exported = name === null ? userModule?.default : userModule?.[name];
  const what = name === null ? "the Worker's default export" : `the Worker's export ${name}`;
  if (exported === undefined) {
    throw new UserFacingError(name === null
      ? "the Worker has no default export for the rpc drive to call; export a class extending WorkerEntrypoint, or name the entrypoint (rpc(..., entrypoint=\"MyEntrypoint\"))"
      : `the Worker has no export named ${name} for the rpc drive to call`);
  }
  if (typeof exported !== "function" || typeof exported.prototype !== "object") {
    throw new UserFacingError(`${what} is not a class; RPC calls the methods of a class extending WorkerEntrypoint`);
  }
  for (const method of methods) {
    if (method === "constructor" || typeof exported.prototype[method] !== "function") {
      throw new UserFacingError(`${what} (${exported.name || "a class"}) has no method ${method}() for the rpc drive to call`);
    }
  }
  return exported;
}

/**
 * @param {import("./run.mjs").Run} run
 * @param {{kind: "rpc", name?: string, entrypoint: string | null, events: any[], caller?: any}} drive
 * @param {(call: PendingCall, env: object, ctx: object) => unknown} handler the call, as `rpcHandler` makes it
 */
export async function driveRpc(run, drive, handler) {
  const caller = callerPolicy(drive.caller, "rpc");
  const ladder = ladderNamed(run, caller.deadlineMs === null ? "response" : "responseWithDeadline");
  assert(drive.entrypoint === null || typeof drive.entrypoint === "string", "the rpc drive's plan carries no entrypoint (null for the default export)");
  const prefix = drive.entrypoint === null ? "Rpc:" : `Rpc:${drive.entrypoint}.`;
  /** @type {PendingCall[]} */
  const pending = timedEvents(drive.events, 0).map(({ event, index, due }) => {
    assert(typeof event?.id === "string", () => `rpc call ${index} of the plan carries no id`);
    assert(typeof event.method === "string" && Array.isArray(event.args), () => `rpc call ${event.id} of the plan carries no method or args`);
    return { id: event.id, method: event.method, args: event.args, attempts: 0, due };
  });
  await driveCalls(run, pending, caller, {
    drive: "rpc",
    key: "callId",
    target: (item) => `${prefix}${item.method}`,
    call: handler,
    respond: (inv, item, target, outcome, late) => {
      /** @type {{ok: true, value: unknown} | {ok: false, error: {name: string, message: string}}} */
      let result;
      if (outcome.kind === "returned") {
        const reading = read(outcome.value, "the value returned");
        if (!reading.ok) {
          run.markUnsupported("not_plain_data", `${inv.id}: ${target} returned something that is not plain data (${reading.why}): an RPC stub, a function or a stream, whose calls would bypass the proxies`);
          return { failed: true, after: null };
        }
        result = { ok: true, value: reading.value };
      } else {
        const error = outcome.kind === "threw" ? outcome.error : undefined;
        realConsole.error(`eutaxy: ${inv.id}: the RPC method ${item.method}() threw:`, error);
        // The caller gets the error as RPC carries it (service.mjs `thrownAcross`, the one rule).
        result = { ok: false, error: carriedFields(error) };
      }
      const fault = effectPoint(run, inv, {
        kind: "platform", target, op: "response", args: { callId: item.id, method: item.method, args: logged(item.args) }, ladder,
        perform: () => result, summarize: (value) => value,
      });
      return { failed: fault !== "none" || late || !result.ok, after: null };
    },
  });
}

/**
 * The call an rpc drive makes per attempt: the entrypoint constructed anew with the attempt's
 * ExecutionContext and env, its method called with a copy of the call's arguments.
 * @param {import("./run.mjs").Run} run @param {any} drive
 * @returns {(call: PendingCall, env: object, ctx: object) => unknown}
 */
export function rpcHandler(run, drive) {
  const methods = [...new Set((drive.events ?? []).map((/** @type {any} */ event) => String(event?.method)))];
  const Entrypoint = entrypointOf(run.userModule, drive.entrypoint ?? null, methods);
  return run.guard((call, env, ctx) => new Entrypoint(ctx, env)[call.method](...JSON.parse(JSON.stringify(call.args))));
}
