// The API writes one row per order; /api/page answers with the assets' home page through the binding.
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/api/page") {
      const page = await env.ASSETS.fetch(new Request(new URL("/", request.url)));
      return new Response(await page.text(), { status: page.status, headers: { "content-type": "text/html" } });
    }
    if (url.pathname === "/api/orders" && request.method === "POST") {
      await env.DB.prepare("INSERT INTO orders (path) VALUES (?)").bind(url.pathname).run();
      return Response.json({ ok: true }, { status: 201 });
    }
    return new Response("not found", { status: 404 });
  },
};
