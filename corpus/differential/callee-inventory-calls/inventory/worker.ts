// The inventory entrypoint for the callee differential case: a reservation takes stock in one
// batch; more than the stock holds is a RangeError, a sku it does not stock an UnknownSku (a class of
// its own, with a code), each reaching the caller as RPC carries it.

import { WorkerEntrypoint } from "cloudflare:workers";

interface Env {
  DB: D1Database;
  PREFIX: string;
}

class UnknownSku extends Error {
  code = "no_such_sku";
  constructor(sku: string) {
    super(`${sku} is not stocked`);
    this.name = "UnknownSku";
  }
}

export class Inventory extends WorkerEntrypoint<Env> {
  async reserve(orderId: string, sku: string, qty: number): Promise<{ reservationId: string; left: number }> {
    const stocked = await this.env.DB.prepare("SELECT 1 AS one FROM stock WHERE sku = ?").bind(sku).first();
    if (stocked === null) throw new UnknownSku(sku);
    const left = await this.level(sku);
    if (left < qty) throw new RangeError(`${sku}: ${left} left, not ${qty}`);
    const reservationId = `${this.env.PREFIX}-${orderId}`;
    await this.env.DB.batch([
      this.env.DB.prepare("INSERT INTO reservations (reservation_id, order_id, sku, qty) VALUES (?, ?, ?, ?)").bind(reservationId, orderId, sku, qty),
      this.env.DB.prepare("UPDATE stock SET qty = qty - ? WHERE sku = ?").bind(qty, sku),
    ]);
    return { reservationId, left: left - qty };
  }

  async level(sku: string): Promise<number> {
    const row = await this.env.DB.prepare("SELECT qty FROM stock WHERE sku = ?").bind(sku).first<{ qty: number }>();
    return row?.qty ?? 0;
  }
}

export default {
  async fetch(): Promise<Response> {
    return new Response("the inventory is reached over RPC (the Inventory entrypoint)", { status: 404 });
  },
} satisfies ExportedHandler<Env>;
