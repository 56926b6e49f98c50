// Durable Objects as the runtime tests see them: a SQLite-backed Ledger that writes to D1
// from inside the object, a key-value Tally reached by unique ids, and the uses the model
// refuses (a jurisdiction, an RPC capability, an object calling another, an unset namespace).
import { DurableObject, RpcTarget } from "cloudflare:workers";

interface Env {
  DB: D1Database;
  LEDGER: DurableObjectNamespace<Ledger>;
  TALLY: DurableObjectNamespace<Tally>;
  UNSET: DurableObjectNamespace<Tally>;
  REMINDER: DurableObjectNamespace<Reminder>;
  PROFILE: DurableObjectNamespace<Profile>;
}

class Handle extends RpcTarget {
  ping(): number {
    return 1;
  }
}

export class Ledger extends DurableObject<Env> {
  calls = 0;

  async deposit(account: string, cents: number): Promise<{ calls: number }> {
    this.calls++;
    await this.env.DB.prepare("INSERT INTO deposits (account, cents) VALUES (?, ?)").bind(account, cents).run();
    this.ctx.storage.sql.exec("UPDATE balances SET cents = cents + ? WHERE account = ?", cents, account);
    await this.ctx.storage.put("last", account);
    return { calls: this.calls };
  }

  // The deposit with the object's input gate held: no other call enters while its D1 call runs.
  async depositBlocked(account: string, cents: number): Promise<{ calls: number }> {
    return await this.ctx.blockConcurrencyWhile(() => this.deposit(account, cents));
  }

  async fetch(request: Request): Promise<Response> {
    const [row] = this.ctx.storage.sql.exec("SELECT cents FROM balances WHERE account = 'alice'").toArray();
    return new Response(`${new URL(request.url).pathname} ${row?.cents}`, { status: 203 });
  }

  async nap(ms: number): Promise<number> {
    const started = Date.now();
    await new Promise((resolve) => setTimeout(resolve, ms));
    await this.env.DB.prepare("INSERT INTO deposits (account, cents) VALUES (?, ?)").bind("nap", Date.now() - started).run();
    await this.ctx.storage.put("napped", Date.now() - started);
    return Date.now() - started;
  }

  // Work after the answer: a timer that records the job, a promise left running, work handed
  // to ctx.waitUntil, and a heartbeat that never settles.
  async accept(job: string): Promise<string> {
    await this.ctx.storage.put(`job:${job}`, "accepted");
    setTimeout(async () => {
      await this.record(job, 1);
      await this.ctx.storage.put(`job:${job}`, "done");
    }, 100);
    return "accepted";
  }

  async leave(job: string): Promise<string> {
    void this.finish(job);
    return "left";
  }

  async hand(job: string): Promise<string> {
    this.ctx.waitUntil(this.finish(job));
    return "handed";
  }

  async heartbeat(): Promise<string> {
    let beats = 0;
    setInterval(() => {
      beats++;
      void this.ctx.storage.put("beats", beats);
    }, 1000);
    return "beating";
  }

  private async finish(job: string): Promise<void> {
    await this.record(job, 2);
    await this.record(job, 3);
    await this.ctx.storage.put(`job:${job}`, "finished");
  }

  private async record(account: string, cents: number): Promise<void> {
    await this.env.DB.prepare("INSERT INTO deposits (account, cents) VALUES (?, ?)").bind(account, cents).run();
  }

  async capability(): Promise<Handle> {
    return new Handle();
  }

  async nested(): Promise<number> {
    return await this.env.TALLY.getByName("inner").bump();
  }
}

export class Tally extends DurableObject<Env> {
  async bump(): Promise<number> {
    const n = ((await this.ctx.storage.get<number>("n")) ?? 0) + 1;
    await this.ctx.storage.put("n", n);
    return n;
  }

  get total(): Promise<number | undefined> {
    return this.ctx.storage.get<number>("n");
  }
}

// Alarms in virtual time: an alarm that records each firing in D1 and in its storage, fails
// while its seeded failUntil is above the retry count, and re-arms itself when told to.
export class Reminder extends DurableObject<Env> {
  async schedule(delayMs: number): Promise<number | null> {
    await this.ctx.storage.setAlarm(Date.now() + delayMs);
    return await this.ctx.storage.getAlarm();
  }

  async scheduleInTransaction(delayMs: number, rollback: boolean): Promise<void> {
    await this.ctx.storage.transaction(async (txn) => {
      await txn.setAlarm(Date.now() + delayMs);
      if (rollback) txn.rollback();
    });
  }

  // setAlarm inside transactionSync(): it applies when the closure returns, not when it throws.
  scheduleInSync(throwing: boolean): number | null | string {
    try {
      this.ctx.storage.transactionSync(() => {
        void this.ctx.storage.setAlarm(Date.now() + 1000);
        if (throwing) throw new Error("changed my mind");
      });
    } catch (error) {
      return (error as Error).message;
    }
    return null;
  }

  // The storage's own setAlarm inside transaction(), whose closure throws: the alarm is rolled
  // back with it, and getAlarm() after says so (null).
  async scheduleInThrowingTransaction(delayMs: number): Promise<number | null> {
    try {
      await this.ctx.storage.transaction(async () => {
        await this.ctx.storage.setAlarm(Date.now() + delayMs);
        throw new Error("changed my mind");
      });
    } catch {
      // the rollback is the point
    }
    return await this.ctx.storage.getAlarm();
  }

  // setAlarm, then deleteAll(): whether the alarm survives is the compatibility date's.
  async scheduleThenDeleteAll(delayMs: number): Promise<number | null> {
    await this.ctx.storage.setAlarm(Date.now() + delayMs);
    await this.ctx.storage.deleteAll();
    return await this.ctx.storage.getAlarm();
  }

  // A call that awaits outbound I/O (a D1 insert) and then writes the object's storage.
  async note(what: string): Promise<number> {
    await this.env.DB.prepare("INSERT INTO deposits (account, cents) VALUES (?, ?)").bind(what, 0).run();
    const notes = ((await this.ctx.storage.get<number>("notes")) ?? 0) + 1;
    await this.ctx.storage.put("notes", notes);
    return notes;
  }

  async alarm(info: { retryCount: number; isRetry: boolean }): Promise<void> {
    await this.env.DB.prepare("INSERT INTO deposits (account, cents) VALUES (?, ?)").bind(`alarm-${info.retryCount}-${info.isRetry}`, Date.now()).run();
    const fired = ((await this.ctx.storage.get<number>("fired")) ?? 0) + 1;
    await this.ctx.storage.put("fired", fired);
    if (await this.ctx.storage.get<boolean>("rearm")) await this.ctx.storage.setAlarm(Date.now() + 1000);
    if (((await this.ctx.storage.get<number>("failUntil")) ?? 0) > info.retryCount) throw new Error("not yet");
  }
}

// A class whose members carry the names Eutaxy's wrapper once kept for itself (state, instance,
// objectEnv, user; the Agents SDK's Agent has a state accessor too): each runs as written.
export class Profile extends DurableObject<Env> {
  #state = { visits: 0 };

  get state(): { visits: number } {
    return this.#state;
  }

  set state(next: { visits: number }) {
    this.#state = next;
  }

  get instance(): string {
    return "the profile";
  }

  objectEnv(): string[] {
    return Object.keys(this.env).filter((name) => name === "DB");
  }

  async user(name: string): Promise<{ name: string; visits: number; instance: string }> {
    this.state = { visits: this.state.visits + 1 };
    await this.ctx.storage.put("visits", this.state.visits);
    return { name, visits: this.state.visits, instance: this.instance };
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === "/deposit") return Response.json(await env.LEDGER.getByName("acct").deposit("alice", 5));
    if (path === "/deposit-blocked") return Response.json(await env.LEDGER.getByName("acct").depositBlocked("alice", 5));
    if (path === "/deposit-idle") return Response.json(await env.LEDGER.getByName("idle").deposit("bob", 7));
    if (path === "/fetch") {
      const answer = await env.LEDGER.getByName("acct").fetch("https://ledger.invalid/balance");
      return new Response(await answer.text(), { status: answer.status });
    }
    if (path === "/nap") return Response.json(await env.LEDGER.getByName("acct").nap(250));
    if (path === "/accept") return Response.json(await env.LEDGER.getByName("acct").accept("j-1"));
    if (path === "/leave") return Response.json(await env.LEDGER.getByName("acct").leave("j-2"));
    if (path === "/hand") return Response.json(await env.LEDGER.getByName("acct").hand("j-3"));
    if (path === "/heartbeat") return Response.json(await env.LEDGER.getByName("acct").heartbeat());
    if (path === "/unique") {
      const id = env.TALLY.newUniqueId();
      const n = await env.TALLY.get(id).bump();
      const total = await env.TALLY.get(id).total;
      return Response.json({ name: id.name, n, total });
    }
    if (path === "/jurisdiction") env.LEDGER.jurisdiction("eu");
    if (path === "/capability") await env.LEDGER.getByName("acct").capability();
    if (path === "/nested") await env.LEDGER.getByName("acct").nested();
    if (path === "/unset") env.UNSET.idFromName("x");
    if (path === "/profile") {
      const profile = env.PROFILE.getByName("p");
      const first = await profile.user("ann");
      const second = await profile.user("ann");
      return Response.json({ first, second, state: await profile.state, instance: await profile.instance, objectEnv: await profile.objectEnv() });
    }
    const reminder = env.REMINDER.getByName("r");
    if (path === "/remind") return Response.json(await reminder.schedule(5000));
    if (path === "/remind-sooner") return Response.json(await reminder.schedule(1000));
    if (path === "/remind-txn") return Response.json(await reminder.scheduleInTransaction(5000, false));
    if (path === "/remind-rollback") return Response.json(await reminder.scheduleInTransaction(5000, true));
    if (path === "/remind-sync") return Response.json(await reminder.scheduleInSync(false));
    if (path === "/remind-sync-throwing") return Response.json(await reminder.scheduleInSync(true));
    if (path === "/remind-throwing-txn") return Response.json(await reminder.scheduleInThrowingTransaction(5000));
    if (path === "/remind-now") return Response.json(await reminder.schedule(0));
    if (path === "/remind-note") return Response.json(await reminder.note("note"));
    if (path === "/remind-delete-all") return Response.json(await reminder.scheduleThenDeleteAll(5000));
    return new Response("not refused", { status: 500 });
  },
};
