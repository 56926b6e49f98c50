// A carts consumer whose carts are Durable Objects with an alarm that expires them: `arm` sets
// the alarm a few milliseconds ahead and notes the items; `arm-then-clear` does the same and
// then empties the cart with deleteAll(), noting afterwards whether getAlarm() still answers
// a time. Whether deleteAll() deletes the alarm is workerd's compatibility flag
// delete_all_deletes_alarm (on from 2026-02-24; this Worker's date is 2026-03-01, and
// wrangler-preserves.jsonc turns it off with delete_all_preserves_alarm). The alarm notes its
// firing in key-value storage, a SQL table and D1. There is no planted bug: the proxied and the
// raw run must end with the same objects, tables and decisions.
import { DurableObject } from "cloudflare:workers";

interface Env {
  DB: D1Database;
  CARTS: DurableObjectNamespace<Cart>;
}

type Job = { cart: string; op: "arm" | "arm-then-clear"; items: number };

/** How far ahead a cart's alarm is set: it fires within the raw side's wait on workerd's real clock. */
const EXPIRY_MS = 100;

export class Cart extends DurableObject<Env> {
  async arm(items: number): Promise<void> {
    // No await between them: one implicit transaction, so the real alarm cannot fire in between.
    void this.ctx.storage.setAlarm(Date.now() + EXPIRY_MS);
    await this.ctx.storage.put("items", items);
  }

  async armThenClear(items: number): Promise<void> {
    void this.ctx.storage.setAlarm(Date.now() + EXPIRY_MS);
    void this.ctx.storage.put("items", items);
    await this.ctx.storage.deleteAll();
    await this.ctx.storage.put("alarmAfterClear", (await this.ctx.storage.getAlarm()) !== null);
  }

  async alarm(): Promise<void> {
    await this.ctx.storage.put("expired", true);
    this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS expiries (items INTEGER)");
    this.ctx.storage.sql.exec("INSERT INTO expiries (items) VALUES (?)", (await this.ctx.storage.get<number>("items")) ?? 0);
    await this.env.DB.prepare("INSERT INTO audit (cart) VALUES (?)").bind(this.ctx.id.name ?? "?").run();
  }
}

export default {
  async queue(batch: MessageBatch<Job>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      const job = message.body;
      const cart = env.CARTS.getByName(job.cart);
      if (job.op === "arm") await cart.arm(job.items);
      else await cart.armThenClear(job.items);
      message.ack();
    }
  },
};
