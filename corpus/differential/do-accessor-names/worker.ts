// A visits consumer whose profiles are Durable Objects written the way the Agents SDK writes
// an Agent: the class keeps its state behind a `state` accessor (a getter and a setter over
// its SQLite storage), and has a getter `instance` and methods `objectEnv` and `user`, the
// names Eutaxy's class wrapper once kept for itself. Each message calls one member through
// the stub (`user(name)` records a visit; an awaited `state` and `instance` read; `objectEnv()`
// lists the bindings the object sees) and the handler writes what the object answered to D1.
// There is no planted bug: the proxied and the raw run must end with the same objects, tables
// and decisions.
import { DurableObject } from "cloudflare:workers";

interface Env {
  DB: D1Database;
  PROFILES: DurableObjectNamespace<Profile>;
}

type Job = { profile: string; member: "user" | "state" | "instance" | "objectEnv"; name?: string };

type State = { visits: number; last: string };

export class Profile extends DurableObject<Env> {
  #cached: State | null = null;

  get state(): State {
    if (this.#cached === null) {
      this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS profile_state (id INTEGER PRIMARY KEY, json TEXT NOT NULL)");
      const [row] = this.ctx.storage.sql.exec<{ json: string }>("SELECT json FROM profile_state WHERE id = 1").toArray();
      this.#cached = row ? (JSON.parse(row.json) as State) : { visits: 0, last: "" };
    }
    return this.#cached;
  }

  set state(next: State) {
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO profile_state (id, json) VALUES (1, ?)", JSON.stringify(next));
    this.#cached = next;
  }

  get instance(): string {
    return `profile ${this.ctx.id.name ?? "?"}`;
  }

  objectEnv(): string[] {
    return Object.keys(this.env).filter((name) => name === "DB" || name === "PROFILES").sort();
  }

  async user(name: string): Promise<State> {
    this.state = { visits: this.state.visits + 1, last: name };
    await this.ctx.storage.put("lastVisitor", name);
    return this.state;
  }
}

export default {
  async queue(batch: MessageBatch<Job>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      const job = message.body;
      const profile = env.PROFILES.getByName(job.profile);
      let answer: unknown;
      if (job.member === "user") answer = await profile.user(job.name ?? "");
      else if (job.member === "state") answer = await profile.state;
      else if (job.member === "instance") answer = await profile.instance;
      else answer = await profile.objectEnv();
      await env.DB.prepare("INSERT INTO answers (profile, member, answer) VALUES (?, ?, ?)").bind(job.profile, job.member, JSON.stringify(answer)).run();
      message.ack();
    }
  },
};
