// The fixed twin of ../worker.ts: each reminder is sent with an idempotency key.
//
// The key is the reminder's own, so a re-run of a failed tick sends the same
// one, and the mail API answers a repeat without mailing again.

interface Env {
  DB: D1Database;
}

interface Reminder {
  id: string;
  email: string;
}

export default {
  async scheduled(controller: ScheduledController, env: Env): Promise<void> {
    const { results } = await env.DB.prepare("SELECT id, email FROM reminders WHERE sent_at IS NULL ORDER BY id").all<Reminder>();
    for (const reminder of results) {
      const reply = await fetch(`https://api.mail.example/v1/reminders/${reminder.id}/send`, {
        method: "POST",
        headers: { "content-type": "application/json", "Idempotency-Key": `reminder/${reminder.id}` },
        body: JSON.stringify({ reminderId: reminder.id, to: reminder.email }),
      });
      if (!reply.ok) throw new Error(`the mail API answered ${reply.status}`);
      await env.DB.prepare("UPDATE reminders SET sent_at = ? WHERE id = ?").bind(controller.scheduledTime, reminder.id).run();
    }
  },
} satisfies ExportedHandler<Env>;
