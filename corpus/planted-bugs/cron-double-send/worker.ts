// An hourly reminder job with a planted bug: a re-run of a failed tick sends again.
//
// Each tick sends every reminder not yet marked sent, then marks it. The job is
// declared to be run again when a tick fails. When the tick dies after the mail
// API accepted a reminder but before the row is marked (a crash between the two),
// the re-run finds the row still unsent and mails the same reminder a second time.

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
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ reminderId: reminder.id, to: reminder.email }),
      });
      if (!reply.ok) throw new Error(`the mail API answered ${reply.status}`);
      await env.DB.prepare("UPDATE reminders SET sent_at = ? WHERE id = ?").bind(controller.scheduledTime, reminder.id).run();
    }
  },
} satisfies ExportedHandler<Env>;
