-- One row per order, updated on every delivery that processes it.
CREATE TABLE orders (
  order_id TEXT PRIMARY KEY,
  amount_cents INTEGER NOT NULL,
  status TEXT NOT NULL,
  deliveries INTEGER NOT NULL
);

-- One ledger entry per order, written only when a SELECT finds none.
CREATE TABLE ledger (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  order_id TEXT NOT NULL,
  amount_cents INTEGER NOT NULL
);

-- One row per processed delivery attempt, written in a batch with a read.
CREATE TABLE audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  order_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  seen INTEGER NOT NULL
);
