// The shop entrypoint for the callee differential case: each order reserves stock with the
// inventory Worker over its service binding and records what came back, a reservation or the
// error the inventory threw (a RangeError for stock it does not hold, an UnknownSku of its own
// class for a sku it does not stock), by name and message, whether it is marked remote, and the
// code it was thrown with if that crossed.

import { WorkerEntrypoint } from "cloudflare:workers";

interface Inventory {
  reserve(orderId: string, sku: string, qty: number): Promise<{ reservationId: string; left: number }>;
  level(sku: string): Promise<number>;
}

interface Env {
  DB: D1Database;
  INVENTORY: Inventory;
}

export class Shop extends WorkerEntrypoint<Env> {
  async order(orderId: string, sku: string, qty: number): Promise<{ outcome: string; level: number }> {
    let outcome: string;
    try {
      const reserved = await this.env.INVENTORY.reserve(orderId, sku, qty);
      outcome = `reserved ${reserved.reservationId}, ${reserved.left} left`;
    } catch (error) {
      const crossed = error as Error & { remote?: boolean; code?: string };
      outcome = `${crossed.name}: ${crossed.message} (remote: ${crossed.remote}, code: ${crossed.code})`;
    }
    await this.env.DB.prepare("INSERT INTO orders (order_id, sku, outcome) VALUES (?, ?, ?)").bind(orderId, sku, outcome).run();
    return { outcome, level: await this.env.INVENTORY.level(sku) };
  }
}

export default {
  async fetch(): Promise<Response> {
    return new Response("the shop is reached over RPC (the Shop entrypoint)", { status: 404 });
  },
} satisfies ExportedHandler<Env>;
