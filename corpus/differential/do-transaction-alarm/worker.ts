// A bookings consumer whose rooms are Durable Objects: each message holds a room, writing the
// hold and setting the alarm that releases it inside one transaction, and some holds change
// their mind (the closure throws, or calls rollback()), which rolls the alarm back with the
// hold, as workerd does. The ways in: the storage's own setAlarm() inside transaction(), the
// transaction's setAlarm(), setAlarm() inside transactionSync(), and a room whose earlier
// alarm must survive a rolled-back change. After each hold the room notes whether getAlarm()
// answers a time, and which. The alarm notes its release in key-value storage, a SQL table and
// D1. There is no planted bug: the proxied and the raw run must end with the same objects,
// tables and decisions.
import { DurableObject } from "cloudflare:workers";

interface Env {
  DB: D1Database;
  ROOMS: DurableObjectNamespace<Room>;
}

type Way = "storage" | "transaction" | "sync" | "rollback";
type Job = { room: string; way: Way; abandon: boolean; armedBefore?: boolean };

/** How far ahead a hold's alarm is set: it fires within the raw side's wait on workerd's real clock. */
const RELEASE_MS = 100;

export class Room extends DurableObject<Env> {
  async hold(way: Way, abandon: boolean, armedBefore: boolean): Promise<void> {
    const storage = this.ctx.storage;
    storage.sql.exec("CREATE TABLE IF NOT EXISTS holds (way TEXT)");
    const before = armedBefore ? Date.now() + RELEASE_MS : null;
    if (before !== null) await storage.setAlarm(before);
    const at = Date.now() + 2 * RELEASE_MS;
    let seenInside: boolean | null = null;
    try {
      if (way === "sync") {
        storage.transactionSync(() => {
          storage.sql.exec("INSERT INTO holds (way) VALUES (?)", way);
          void storage.setAlarm(at);
          if (abandon) throw new Error("changed my mind");
        });
      } else {
        await storage.transaction(async (txn) => {
          await txn.put("held", way);
          if (way === "storage") await storage.setAlarm(at);
          else await txn.setAlarm(at);
          seenInside = (await txn.getAlarm()) === at;
          if (abandon && way === "rollback") txn.rollback();
          else if (abandon) throw new Error("changed my mind");
        });
      }
    } catch {
      // the rollback is the point
    }
    const after = await storage.getAlarm();
    await storage.put("after", after === null ? "none" : after === at ? "new" : after === before ? "earlier" : "other");
    if (seenInside !== null) await storage.put("seenInside", seenInside);
  }

  async alarm(): Promise<void> {
    await this.ctx.storage.put("released", true);
    this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS releases (held TEXT)");
    this.ctx.storage.sql.exec("INSERT INTO releases (held) VALUES (?)", (await this.ctx.storage.get<string>("held")) ?? "-");
    await this.env.DB.prepare("INSERT INTO audit (room) VALUES (?)").bind(this.ctx.id.name ?? "?").run();
  }
}

export default {
  async queue(batch: MessageBatch<Job>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      const job = message.body;
      await env.ROOMS.getByName(job.room).hold(job.way, job.abandon, job.armedBefore ?? false);
      message.ack();
    }
  },
};
