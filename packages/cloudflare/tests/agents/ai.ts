// The template Agent with an AI binding it calls: the model cannot run Workers AI.
import { Agent, routeAgentRequest } from "agents";

type Env = { Counter: DurableObjectNamespace<Counter>; AI: Ai };

export class Counter extends Agent<Env, { reply: string }> {
  initialState = { reply: "" };

  async onRequest() {
    const answer = (await this.env.AI.run("@cf/meta/llama-3.1-8b-instruct", { prompt: "hi" })) as { response: string };
    this.setState({ reply: answer.response });
    return Response.json(this.state);
  }
}

export default {
  async fetch(request: Request, env: Env) {
    return (await routeAgentRequest(request, env)) ?? new Response("Not found", { status: 404 });
  },
};
