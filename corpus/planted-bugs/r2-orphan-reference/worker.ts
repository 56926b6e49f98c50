// A file upload endpoint with a planted bug: the record is written before the body.
//
// POST /uploads stores a file: a row in D1 naming the body's R2 key, then the
// body in R2. If the invocation dies between the two (a crash, or the put
// failing and the handler answering 500), the row names an object that was
// never written, and every later download of that file finds nothing. The
// client does not resend, so nothing repairs it.

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
    await env.DB.prepare("INSERT INTO files (id, r2_key, size) VALUES (?, ?, ?) ON CONFLICT(id) DO NOTHING")
      .bind(upload.fileId, key, body.byteLength)
      .run();
    await env.FILES.put(key, body, { httpMetadata: { contentType: "text/plain" } });
    return Response.json({ stored: key }, { status: 201 });
  },
} satisfies ExportedHandler<Env>;
