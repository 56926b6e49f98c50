// A five-minute job for the cron differential case. Each tick logs its attempt (its
// scheduledTime and the expression it ran for) and marks itself done. Which tick it is comes
// from controller.scheduledTime alone (the job never reads the clock): the second tick fails
// its first attempt and succeeds when run again, the third calls noRetry() and then fails,
// and the fourth fails every attempt, so the platform gives it up.

interface Env {
  DB: D1Database;
}

/** The first tick's time: the virtual epoch, 2026-01-01T00:00Z. */
const FIRST = Date.UTC(2026, 0, 1);
const EVERY_MS = 5 * 60 * 1000;

export default {
  async scheduled(controller: ScheduledController, env: Env): Promise<void> {
    const tick = (controller.scheduledTime - FIRST) / EVERY_MS + 1;
    const log = (note: string) =>
      env.DB.prepare("INSERT INTO attempts (scheduled_time, cron, note) VALUES (?, ?, ?)")
        .bind(controller.scheduledTime, controller.cron, note)
        .run();
    const tried = await env.DB.prepare("SELECT COUNT(*) AS n FROM attempts WHERE scheduled_time = ?")
      .bind(controller.scheduledTime)
      .first<{ n: number }>();
    const attempt = (tried?.n ?? 0) + 1;
    await log(`tick ${tick} attempt ${attempt}`);
    if (tick === 2 && attempt === 1) throw new Error("tick 2 fails its first attempt");
    if (tick === 3) {
      controller.noRetry();
      throw new Error("tick 3 fails and asks not to be run again");
    }
    if (tick === 4) throw new Error(`tick 4 fails attempt ${attempt}`);
    await env.DB.prepare("INSERT INTO done (scheduled_time, attempt) VALUES (?, ?)").bind(controller.scheduledTime, attempt).run();
  },
} satisfies ExportedHandler<Env>;
