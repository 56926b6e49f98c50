// An upload endpoint with a planted quota overshoot: it sums the catalogue's sizes, refuses
// an upload that would pass the 5 GiB quota, and records the upload otherwise. The check and
// the insert are two statements: two uploads handled at once (requests interleave at their
// I/O in one isolate) both see room for one more, and both are recorded.

interface Env {
  DB: D1Database;
}

type Upload = { id: string; size: number };

const QUOTA_BYTES = 5 * 1024 ** 3;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { id, size } = await request.json<Upload>();
    const used = await env.DB.prepare("SELECT COALESCE(SUM(size), 0) AS bytes FROM documents").first<{ bytes: number }>();
    if ((used?.bytes ?? 0) + size > QUOTA_BYTES) {
      return Response.json({ error: "quota exceeded" }, { status: 413 });
    }
    // The bug: nothing checks that the catalogue still has room when the row goes in.
    await env.DB.prepare("INSERT INTO documents (id, size) VALUES (?, ?)").bind(id, size).run();
    return Response.json({ id, size }, { status: 201 });
  },
} satisfies ExportedHandler<Env>;
