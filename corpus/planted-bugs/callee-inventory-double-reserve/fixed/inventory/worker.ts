// The inventory Worker, fixed: reserve() is idempotent per order.
//
// A reservation is keyed by its order: a resent reserve() inserts nothing, takes nothing off
// the stock, and answers the reservation the first call made, so the order Worker records
// the one reservation there is.

import { WorkerEntrypoint } from "cloudflare:workers";

interface Env {
  DB: D1Database;
}

export class Inventory extends WorkerEntrypoint<Env> {
  async reserve(orderId: string, sku: string, qty: number): Promise<{ reservationId: string }> {
    const reservationId = crypto.randomUUID();
    await this.env.DB.batch([
      this.env.DB.prepare("INSERT INTO reservations (reservation_id, order_id, sku, qty) VALUES (?, ?, ?, ?) ON CONFLICT(order_id) DO NOTHING")
        .bind(reservationId, orderId, sku, qty),
      // Only the call whose reservation was inserted takes the stock.
      this.env.DB.prepare("UPDATE stock SET qty = qty - ? WHERE sku = ? AND EXISTS (SELECT 1 FROM reservations WHERE reservation_id = ?)")
        .bind(qty, sku, reservationId),
    ]);
    const row = await this.env.DB.prepare("SELECT reservation_id FROM reservations WHERE order_id = ?").bind(orderId).first<{ reservation_id: string }>();
    return { reservationId: row!.reservation_id };
  }
}

export default {
  async fetch(): Promise<Response> {
    return new Response("the inventory is reached over RPC (the Inventory entrypoint)", { status: 404 });
  },
} satisfies ExportedHandler<Env>;
