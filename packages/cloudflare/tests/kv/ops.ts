// Each KV operation the binding has, one mode per message: the tests read the effect log
// and the snapshot. A caught error is written to the key "caught".
interface Env {
  KV: KVNamespace;
}

type Op = { do: "all" | "expire" | "bad-expiration" | "put" | "get" | "list" };

async function all(kv: KVNamespace): Promise<void> {
  await kv.put("a", "1", { metadata: { m: 1 } });
  await kv.put("j", JSON.stringify({ x: 2 }), { expirationTtl: 120 });
  await kv.get("a");
  await kv.get("j", "json");
  await kv.get("a", "arrayBuffer");
  const stream = await kv.get("a", { type: "stream" });
  await kv.put("streamed", await new Response(stream).text());
  await kv.get(["a", "j", "zz"]);
  await kv.getWithMetadata("a");
  const first = await kv.list({ limit: 1 });
  await kv.list({ cursor: first.cursor });
  await kv.delete("a");
  await kv.put("bytes", new Uint8Array([255, 0]));
  await kv.put("piped", new Response("from a stream").body as ReadableStream);
  await kv.getWithMetadata(["j", "s2"], "json");
}

async function caught(kv: KVNamespace, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (error) {
    await kv.put("caught", String((error as Error).message));
  }
}

export default {
  async queue(batch: MessageBatch<Op>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      const kv = env.KV;
      switch (message.body.do) {
        case "all":
          await all(kv);
          break;
        case "expire": {
          await kv.put("t", "x", { expirationTtl: 60 });
          await kv.put("later", "y", { expiration: Math.floor(Date.now() / 1000) + 3600 });
          await new Promise((resolve) => setTimeout(resolve, 61_000));
          await kv.put("seen", String(await kv.get("t")));
          break;
        }
        case "bad-expiration":
          await caught(kv, () => kv.put("t", "x", { expirationTtl: 10 }));
          break;
        case "put":
          await caught(kv, () => kv.put("k", "v"));
          break;
        case "get":
          await caught(kv, async () => kv.put("got", String(await kv.get("seeded"))));
          break;
        case "list":
          await kv.put("listed", JSON.stringify((await kv.list({ prefix: "s" })).keys.map((key) => key.name)));
          break;
      }
      message.ack();
    }
  },
};
