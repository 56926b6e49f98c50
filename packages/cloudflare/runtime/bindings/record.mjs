// @ts-check
/**
 * The binding record: everything the runtime knows about one binding kind, in one file
 * (bindings/d1.mjs, bindings/durable_object.mjs, bindings/queue_consumer.mjs, bindings/service.mjs,
 * bindings/queue_producer.mjs, bindings/workflow.mjs, bindings/externals.mjs, bindings/traps.mjs).
 * The run, the reset and the snapshot iterate `RECORDS` (bindings/index.mjs) in setup order
 * and name no kind; a new binding is one more record file and its tests.
 *
 * Every field but `kind` is optional; a record holds the ones its binding has:
 *
 * - `kind`: the record's name; for a registered kind (Python's `eutaxy.cloudflare.bindings`)
 *   its Python record's `name`, the key of its entry in the runtime config's `kinds`.
 * - `names(config)`: the env names the record owns, from its section of the runtime config
 *   (a registered kind's record has none: it owns its entry's bindings, bindings/index.mjs)
 *   (the load message read by host/load.mjs): `[name, entry]` pairs, `entry` that section's
 *   value for the name. The first record to claim a name owns it.
 * - `standsIn`: true when the record's value is put in the env even where workerd gave none
 *   (a trap for a binding Miniflare does not provide).
 * - `proxy(run, inv, name, real, entry)`: the value the Worker sees for one invocation, made
 *   from the real binding; every call that is an effect goes through `effectPoint`.
 * - `reset(name, real, entry)`: bring the real binding to the state the scenario's setup step
 *   asks for, before every run and outside the effect log. It forgets whatever the record
 *   kept from the run before (D1's table listing).
 * - `snapshot(owned, run)`: the state the binding ends with, `{target, table, rows}` per table,
 *   which a completed run records after the last event (kind `snapshot`, invocation
 *   `snapshot`, ordinal 0). `owned` is the record's `[name, real, entry]` triples in the
 *   order `names` gave them; `run` the run that ended (absent on the differential runner's
 *   raw side), for state the record keeps per run.
 * - `globals(run)`: `[object, property, value]` triples installed on top of the virtual
 *   globals for the run (and put back with them): state made here is per run.
 * - `drives`: `{[drive kind]: {method, drive}}`, the delivery of the binding's own events: the
 *   Worker handler `method` it calls and the drive function `drive(run, drive, handler)`.
 * - `events(run)`: events the binding makes during a run, as scheduler sources (one or a list)
 *   (scheduler/scheduler.mjs) the scheduler delivers beside the drive's, before it (a Durable
 *   Object's alarms; the messages the Worker produces onto a queue it consumes). A source
 *   empty for the whole run changes nothing.
 * - `settleRaw(owned, waitMs)`: on the differential runner's raw side only, after its last
 *   attempt: wait, at most `waitMs` of real time, for the work the runtime runs on its own
 *   (a Durable Object's real alarms) to finish, so the snapshot reads the state it leaves.
 *   Answers what did not finish in time, one sentence each naming it (empty: all did).
 *
 * @typedef {object} BindingRecord
 * @property {string} kind
 * @property {(config: any) => [string, any][]} [names]
 * @property {boolean} [standsIn]
 * @property {(run: import("../run.mjs").Run, inv: import("../effects.mjs").Invocation, name: string, real: any, entry: any) => unknown} [proxy]
 * @property {(name: string, real: any, entry: any) => Promise<void>} [reset]
 * @property {(owned: [string, any, any][], run?: import("../run.mjs").Run) => Promise<{target: string, table: string, rows: unknown[]}[]>} [snapshot]
 * @property {(run: import("../run.mjs").Run) => [object, string, unknown][]} [globals]
 * @property {Record<string, {method: string, drive: (run: import("../run.mjs").Run, drive: any, handler: any) => Promise<void>}>} [drives]
 * @property {(run: import("../run.mjs").Run) => import("../scheduler/scheduler.mjs").Source | import("../scheduler/scheduler.mjs").Source[]} [events]
 * @property {(owned: [string, any, any][], waitMs: number) => Promise<string[]>} [settleRaw]
 */

export {};
