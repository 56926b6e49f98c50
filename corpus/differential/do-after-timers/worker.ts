// Timers after the answer: a job consumer whose runners (Durable Objects) answer "accepted"
// and finish each job afterwards in timers of their own. `accept` writes the job's storage in
// one timer; `chain` does it in a timer that arms a second one; `waitUntil` hands the work to
// ctx.waitUntil, whose promise awaits a timer. Each finished job is noted in the object's
// key-value storage and SQL table and in a D1 audit row written from inside the object. No
// message reads what another's work wrote, so the end state does not depend on when the work
// runs: in a proxied run, in virtual time before the next message; on the raw side, on
// workerd's real clock, which the raw side's settle waits for. There is no planted bug: the
// proxied and the raw run must end with the same objects and tables.
import { DurableObject } from "cloudflare:workers";

interface Env {
  DB: D1Database;
  RUNNERS: DurableObjectNamespace<Runner>;
}

type Job = { runner: string; job: string; how: "accept" | "chain" | "waitUntil" };

export class Runner extends DurableObject<Env> {
  async accept(job: string): Promise<string> {
    await this.ctx.storage.put(`job:${job}`, "accepted");
    setTimeout(() => void this.finish(job, 1), 5);
    return "accepted";
  }

  async chain(job: string): Promise<string> {
    await this.ctx.storage.put(`job:${job}`, "accepted");
    setTimeout(() => {
      void this.ctx.storage.put(`job:${job}`, "halfway");
      setTimeout(() => void this.finish(job, 2), 5);
    }, 5);
    return "accepted";
  }

  async handOver(job: string): Promise<string> {
    await this.ctx.storage.put(`job:${job}`, "accepted");
    this.ctx.waitUntil(
      (async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        await this.finish(job, 1);
      })(),
    );
    return "accepted";
  }

  private async finish(job: string, steps: number): Promise<void> {
    await this.ctx.storage.put(`job:${job}`, "done");
    this.ctx.storage.sql.exec("INSERT INTO finished (job, steps) VALUES (?, ?)", job, steps);
    await this.env.DB.prepare("INSERT INTO audit (job, runner, steps) VALUES (?, ?, ?)").bind(job, this.ctx.id.name ?? "?", steps).run();
  }
}

export default {
  async queue(batch: MessageBatch<Job>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      const { runner, job, how } = message.body;
      const stub = env.RUNNERS.getByName(runner);
      if (how === "chain") await stub.chain(job);
      else if (how === "waitUntil") await stub.handOver(job);
      else await stub.accept(job);
      message.ack();
    }
  },
};
