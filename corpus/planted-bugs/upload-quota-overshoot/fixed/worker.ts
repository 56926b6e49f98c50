// The fixed twin: the quota check and the insert are one statement, which D1 runs whole, so
// no other upload can come between them; an upload that would pass the quota changes nothing.

interface Env {
  DB: D1Database;
}

type Upload = { id: string; size: number };

const QUOTA_BYTES = 5 * 1024 ** 3;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { id, size } = await request.json<Upload>();
    const inserted = await env.DB.prepare(
      "INSERT INTO documents (id, size) SELECT ?1, ?2 WHERE (SELECT COALESCE(SUM(size), 0) FROM documents) + ?2 <= ?3",
    )
      .bind(id, size, QUOTA_BYTES)
      .run();
    if (inserted.meta.changes === 0) {
      return Response.json({ error: "quota exceeded" }, { status: 413 });
    }
    return Response.json({ id, size }, { status: 201 });
  },
} satisfies ExportedHandler<Env>;
