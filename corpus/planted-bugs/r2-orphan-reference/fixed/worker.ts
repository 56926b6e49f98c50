// The fixed twin of ../worker.ts: the body is written before the record.
//
// The body goes to R2 first and the row naming it to D1 after, so a crash
// between the two leaves an object no row names (space, reclaimable by a
// sweep), never a row naming an object that does not exist.

interface Env {
  DB: D1Database;
  FILES: R2Bucket;
}

interface Upload {
  fileId: string;
  text: string;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (request.method !== "POST" || url.pathname !== "/uploads") return new Response("not found", { status: 404 });
    const upload = await request.json<Upload>();
    const key = `files/${upload.fileId}`;
    const body = new TextEncoder().encode(upload.text);
    await env.FILES.put(key, body, { httpMetadata: { contentType: "text/plain" } });
    await env.DB.prepare("INSERT INTO files (id, r2_key, size) VALUES (?, ?, ?) ON CONFLICT(id) DO NOTHING")
      .bind(upload.fileId, key, body.byteLength)
      .run();
    return Response.json({ stored: key }, { status: 201 });
  },
} satisfies ExportedHandler<Env>;
