// The inventory Worker, with a planted bug: a resent reserve() reserves the stock again.
//
// Each reserve() writes a new reservation and takes its quantity off the stock. When the
// reservation was written but the answer never reached the order Worker (the ambiguous
// outcome of the call), the order Worker calls again and a second reservation is made for
// the same order: the first is held by no order, and its stock is lost.

import { WorkerEntrypoint } from "cloudflare:workers";

interface Env {
  DB: D1Database;
}

export class Inventory extends WorkerEntrypoint<Env> {
  async reserve(orderId: string, sku: string, qty: number): Promise<{ reservationId: string }> {
    const reservationId = crypto.randomUUID();
    await this.env.DB.batch([
      this.env.DB.prepare("INSERT INTO reservations (reservation_id, order_id, sku, qty) VALUES (?, ?, ?, ?)").bind(reservationId, orderId, sku, qty),
      this.env.DB.prepare("UPDATE stock SET qty = qty - ? WHERE sku = ?").bind(qty, sku),
    ]);
    return { reservationId };
  }
}

export default {
  async fetch(): Promise<Response> {
    return new Response("the inventory is reached over RPC (the Inventory entrypoint)", { status: 404 });
  },
} satisfies ExportedHandler<Env>;
