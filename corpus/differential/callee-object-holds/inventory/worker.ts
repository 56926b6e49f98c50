// The inventory for the callee-classes differential case. A reservation takes a hold in the sku's
// Hold object (a class of the inventory's, which the shop binds too): the object reads the stock
// from the inventory's D1 database and its REGION var, keeps its holds in a SQL table, and throws
// a RangeError when the stock left is short and an UnknownSku (a class of its own, with a code)
// for a sku the inventory does not stock. The inventory records a reservation in its database,
// and every outcome in its Tally object (a class only it binds), before the error crosses on; a
// reservation names the hold's object id as its own binding makes it.

import { DurableObject, WorkerEntrypoint } from "cloudflare:workers";

interface Env {
  DB: D1Database;
  PREFIX: string;
  REGION: string;
  STOCK_HOLDS: DurableObjectNamespace<Hold>;
  TALLY: DurableObjectNamespace<Tally>;
}

/** A sku the inventory does not stock: an error class of its own, with a code of its own. */
class UnknownSku extends Error {
  override name = "UnknownSku";
  readonly code = "no_such_sku";
}

export class Hold extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS holds (order_id TEXT PRIMARY KEY, qty INTEGER NOT NULL, region TEXT NOT NULL)");
  }

  async take(orderId: string, sku: string, qty: number): Promise<{ left: number; region: string }> {
    const stocked = await this.stocked(sku);
    if (stocked === null) throw new UnknownSku(`${sku} is not stocked`);
    const left = stocked - this.held();
    if (left < qty) throw new RangeError(`${sku}: ${left} left in ${this.env.REGION}, not ${qty}`);
    this.ctx.storage.sql.exec("INSERT INTO holds (order_id, qty, region) VALUES (?, ?, ?)", orderId, qty, this.env.REGION);
    await this.ctx.storage.put("last", orderId);
    return { left: left - qty, region: this.env.REGION };
  }

  async level(sku: string): Promise<number> {
    return ((await this.stocked(sku)) ?? 0) - this.held();
  }

  private async stocked(sku: string): Promise<number | null> {
    const row = await this.env.DB.prepare("SELECT qty FROM stock WHERE sku = ?").bind(sku).first<{ qty: number }>();
    return row === null ? null : row.qty;
  }

  private held(): number {
    return this.ctx.storage.sql.exec<{ held: number }>("SELECT COALESCE(SUM(qty), 0) AS held FROM holds").one().held;
  }
}

export class Tally extends DurableObject<Env> {
  async count(orderId: string, outcome: string): Promise<number> {
    this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS outcomes (order_id TEXT PRIMARY KEY, outcome TEXT NOT NULL)");
    this.ctx.storage.sql.exec("INSERT INTO outcomes (order_id, outcome) VALUES (?, ?)", orderId, outcome);
    const seen = ((await this.ctx.storage.get<number>(outcome)) ?? 0) + 1;
    await this.ctx.storage.put(outcome, seen);
    return seen;
  }
}

export class Inventory extends WorkerEntrypoint<Env> {
  async reserve(orderId: string, sku: string, qty: number): Promise<{ reservationId: string; left: number; region: string; holdId: string }> {
    const tally = this.env.TALLY.getByName(this.env.REGION);
    try {
      const held = await this.env.STOCK_HOLDS.getByName(sku).take(orderId, sku, qty);
      const reservationId = `${this.env.PREFIX}-${orderId}`;
      await this.env.DB.prepare("INSERT INTO reservations (reservation_id, order_id, sku, qty, region) VALUES (?, ?, ?, ?, ?)")
        .bind(reservationId, orderId, sku, qty, held.region).run();
      await tally.count(orderId, "held");
      // The object's id as the inventory's binding names it: the shop's binding names the same one.
      return { reservationId, ...held, holdId: this.env.STOCK_HOLDS.idFromName(sku).toString() };
    } catch (error) {
      // What crossed from the object: its name, and whether workerd marked it remote.
      const crossed = error as Error & { remote?: boolean };
      await tally.count(orderId, `${crossed.name} (remote: ${crossed.remote})`);
      throw error;
    }
  }
}

export default {
  async fetch(): Promise<Response> {
    return new Response("the inventory is reached over RPC (the Inventory entrypoint)", { status: 404 });
  },
} satisfies ExportedHandler<Env>;
