import { where } from "tiny-where";

export default {
  async fetch(request, env) {
    await env.DB.prepare("INSERT INTO built (summary) VALUES (?)").bind(where()).run();
    return new Response("ok");
  },
};
