// A media consumer doing each kind of R2 operation: get with a body read as
// text, a copy that passes a body stream back to put, head, list by prefix, a
// create-only put (onlyIf etagDoesNotMatch "*"), a compare-and-swap put (onlyIf
// etagMatches) and deletes. One message asks for a retry on its first delivery
// and one names a source that does not exist and throws until it is
// dead-lettered. There is no planted bug: the proxied and the raw run must end
// with the same bucket and decisions.

interface Env {
  MEDIA: R2Bucket;
}

type Job =
  | { op: "derive"; source: string; retryFirst?: boolean }
  | { op: "copy"; source: string; target: string }
  | { op: "archive"; prefix: string }
  | { op: "bump"; key: string }
  | { op: "drop"; keys: string[] };

async function derive(bucket: R2Bucket, source: string): Promise<void> {
  const original = await bucket.get(source);
  if (original === null) throw new Error(`no such source ${source}`);
  const text = await original.text();
  await bucket.put(`derived/${source}`, text.toUpperCase(), {
    httpMetadata: { contentType: "text/plain" },
    customMetadata: { source, sourceEtag: original.etag },
  });
}

async function copy(bucket: R2Bucket, source: string, target: string): Promise<void> {
  const original = await bucket.get(source);
  if (original === null) throw new Error(`no such source ${source}`);
  await bucket.put(target, original.body, { httpMetadata: original.httpMetadata, customMetadata: { copiedFrom: source } });
}

async function archive(bucket: R2Bucket, prefix: string): Promise<void> {
  const listed = await bucket.list({ prefix, include: ["customMetadata"] });
  for (const object of listed.objects) {
    const head = await bucket.head(object.key);
    if (head === null) continue;
    // Create-only: a second delivery finds the archive entry and writes nothing.
    await bucket.put(`archive/${object.key}`, JSON.stringify({ key: head.key, size: head.size, etag: head.etag }), {
      onlyIf: { etagDoesNotMatch: "*" },
      customMetadata: object.customMetadata,
    });
  }
}

async function bump(bucket: R2Bucket, key: string): Promise<void> {
  const current = await bucket.get(key);
  const count = current === null ? 0 : Number(await current.text());
  const stored = await bucket.put(key, String(count + 1), current === null ? {} : { onlyIf: { etagMatches: current.etag } });
  // A lost race leaves the counter as another writer made it; this consumer has no rival.
  if (stored === null) throw new Error(`counter ${key} changed underneath`);
}

export default {
  async queue(batch: MessageBatch<Job>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      const job = message.body;
      if (job.op === "derive") {
        if (job.retryFirst && message.attempts === 1) {
          message.retry();
          continue;
        }
        await derive(env.MEDIA, job.source);
      }
      if (job.op === "copy") await copy(env.MEDIA, job.source, job.target);
      if (job.op === "archive") await archive(env.MEDIA, job.prefix);
      if (job.op === "bump") await bump(env.MEDIA, job.key);
      if (job.op === "drop") await env.MEDIA.delete(job.keys);
      message.ack();
    }
  },
};
