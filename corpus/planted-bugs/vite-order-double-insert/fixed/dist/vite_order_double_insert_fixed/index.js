// \0virtual:cloudflare/worker-entry
var worker_entry_default = { async fetch(request, env) {
	const url = new URL(request.url);
	if (request.method !== "POST" || url.pathname !== "/api/orders") return new Response("not found", { status: 404 });
	const order = await request.json();
	await env.DB.prepare("INSERT INTO orders (order_id, amount_cents) VALUES (?, ?) ON CONFLICT(order_id) DO NOTHING").bind(order.orderId, order.amountCents).run();
	const { receipt } = await import("./assets/receipt-D-ijKX03.js");
	return Response.json(receipt(order), { status: 201 });
} };
export { worker_entry_default as default };

//# sourceMappingURL=index.js.map