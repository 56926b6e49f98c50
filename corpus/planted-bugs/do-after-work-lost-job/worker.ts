// A job intake with a planted bug: the Durable Object accepts a job, answers, and records it
// afterwards, in a timer of its own.
//
// accept() answers "accepted" at once and leaves the job's write to work after its answer, so
// the Worker tells the caller 202 before anything is stored. If that work crashes (the object
// is reset before the timer's write lands), nobody retries it: the caller got its 2xx and the
// object forgot the job with its instance. The accepted job is never recorded.
import { DurableObject } from "cloudflare:workers";

interface Env {
  DB: D1Database;
  RUNNER: DurableObjectNamespace<Runner>;
}

type Job = { jobId: string; task: string };

export class Runner extends DurableObject<Env> {
  async accept(job: Job): Promise<string> {
    setTimeout(async () => {
      await this.env.DB.prepare("INSERT OR IGNORE INTO jobs (job_id, task) VALUES (?, ?)").bind(job.jobId, job.task).run();
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
