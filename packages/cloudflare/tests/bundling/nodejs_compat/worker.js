// Bare built-in names and `node:` ones both reach workerd's Node.js modules under nodejs_compat.
import { posix } from "path";
import { Buffer } from "node:buffer";

export default {
  async fetch(request, env) {
    const summary = `${posix.join("a", "b")} ${Buffer.from("hi").toString("hex")}`;
    await env.DB.prepare("INSERT INTO built (summary) VALUES (?)").bind(summary).run();
    return new Response("ok");
  },
};
