// Each message increments or reads one key of the toy counter service, then is acknowledged.
interface Counter {
  increment(key: string): Promise<number>;
  get(key: string): Promise<number>;
}

interface Env {
  COUNTER: Counter;
}

export default {
  async queue(batch: MessageBatch<{ do: "increment" | "get"; key: string }>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      if (message.body.do === "increment") await env.COUNTER.increment(message.body.key);
      else await env.COUNTER.get(message.body.key);
      message.ack();
    }
  },
};
