// The fixed job intake: the Durable Object records the job before it answers, and leaves only
// the follow-up (noting the job) to work after its answer. A crash before the write fails the
// call, so the caller hears an error and sends the job again; a crash in the follow-up loses
// nothing the caller was told was accepted.
import { DurableObject } from "cloudflare:workers";

interface Env {
  DB: D1Database;
  RUNNER: DurableObjectNamespace<Runner>;
}

type Job = { jobId: string; task: string };

export class Runner extends DurableObject<Env> {
  async accept(job: Job): Promise<string> {
    await this.env.DB.prepare("INSERT OR IGNORE INTO jobs (job_id, task) VALUES (?, ?)").bind(job.jobId, job.task).run();
    setTimeout(async () => {
      await this.env.DB.prepare("UPDATE jobs SET noted = 1 WHERE job_id = ?").bind(job.jobId).run();
    }, 50);
    return "accepted";
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (request.method !== "POST" || new URL(request.url).pathname !== "/jobs") return new Response("not found", { status: 404 });
    const job = await request.json<Job>();
    const answer = await env.RUNNER.getByName("runner").accept(job);
    return new Response(answer, { status: 202 });
  },
} satisfies ExportedHandler<Env>;
