// A reminders consumer whose accounts are Durable Objects with alarms: `arm` sets the object's
// alarm a delay after now and notes a label, so a second `arm` replaces the alarm (and its
// label) before it fires; `disarm` deletes it. The alarm handler notes the firing in key-value
// storage and a SQL table, writes an audit row to D1 from inside the object, and re-arms
// itself once, so each armed object's alarm fires twice. A delay of a day never fires within
// the run; one of a few milliseconds fires on whichever clock the object runs on (virtual in
// a proxied run, workerd's real one on the raw side). Nothing an alarm writes is read by a
// later message, so the end state does not depend on when it fires. There is no planted bug:
// the proxied and the raw run must end with the same objects, tables and decisions.
import { DurableObject } from "cloudflare:workers";

interface Env {
  DB: D1Database;
  REMINDERS: DurableObjectNamespace<Reminder>;
}

type Job = { account: string; op: "arm" | "disarm"; label?: string; delayMs?: number };

/** How often one armed alarm fires: the first firing re-arms it once. */
const FIRINGS = 2;

export class Reminder extends DurableObject<Env> {
  async arm(label: string, delayMs: number): Promise<void> {
    await this.ctx.storage.put("label", label);
    await this.ctx.storage.setAlarm(Date.now() + delayMs);
  }

  async disarm(): Promise<void> {
    await this.ctx.storage.delete("label");
    await this.ctx.storage.deleteAlarm();
  }

  async alarm(info?: AlarmInvocationInfo): Promise<void> {
    const label = (await this.ctx.storage.get<string>("label")) ?? "none";
    const fired = ((await this.ctx.storage.get<number>("fired")) ?? 0) + 1;
    this.ctx.storage.sql.exec("INSERT INTO firings (label, nth, retry) VALUES (?, ?, ?)", label, fired, info?.retryCount ?? 0);
    await this.ctx.storage.put("fired", fired);
    await this.env.DB.prepare("INSERT INTO audit (account, label, nth) VALUES (?, ?, ?)").bind(this.ctx.id.name ?? "?", label, fired).run();
    if (fired < FIRINGS) await this.ctx.storage.setAlarm(Date.now() + 5);
  }
}

export default {
  async queue(batch: MessageBatch<Job>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      const job = message.body;
      const reminder = env.REMINDERS.getByName(job.account);
      if (job.op === "arm") await reminder.arm(job.label ?? "", job.delayMs ?? 0);
      else await reminder.disarm();
      message.ack();
    }
  },
};
