// The shop for the callee-classes differential case: each order reserves stock with the inventory
// Worker over its service binding and records what came back, a reservation or the error that
// crossed from the inventory's Hold object through the inventory (by name and message, whether
// it is marked remote, and the code it was thrown with if that crossed), and whether the hold's
// object id the inventory's binding made is the one its own binding makes; then it reads the
// sku's Hold object itself, through its own binding of the inventory's class, for the level left.

import { WorkerEntrypoint } from "cloudflare:workers";

interface Inventory {
  reserve(orderId: string, sku: string, qty: number): Promise<{ reservationId: string; left: number; region: string; holdId: string }>;
}

interface Hold {
  level(sku: string): Promise<number>;
}

interface Env {
  DB: D1Database;
  INVENTORY: Inventory;
  HOLDS: DurableObjectNamespace<Hold & Rpc.DurableObjectBranded>;
}

export class Shop extends WorkerEntrypoint<Env> {
  async order(orderId: string, sku: string, qty: number): Promise<{ outcome: string; level: number }> {
    let outcome: string;
    try {
      const reserved = await this.env.INVENTORY.reserve(orderId, sku, qty);
      const oneObject = reserved.holdId === this.env.HOLDS.idFromName(sku).toString();
      outcome = `reserved ${reserved.reservationId} in ${reserved.region}, ${reserved.left} left (one object: ${oneObject})`;
    } catch (error) {
      const crossed = error as Error & { remote?: boolean; code?: string };
      outcome = `${crossed.name}: ${crossed.message} (remote: ${crossed.remote}, code: ${crossed.code})`;
    }
    const level = await this.env.HOLDS.getByName(sku).level(sku);
    await this.env.DB.prepare("INSERT INTO orders (order_id, sku, outcome, level) VALUES (?, ?, ?, ?)").bind(orderId, sku, outcome, level).run();
    return { outcome, level };
  }
}

export default {
  async fetch(): Promise<Response> {
    return new Response("the shop is reached over RPC (the Shop entrypoint)", { status: 404 });
  },
} satisfies ExportedHandler<Env>;
