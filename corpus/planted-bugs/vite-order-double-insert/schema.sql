-- One row per order recorded. Nothing stops a second row for the same order.
CREATE TABLE orders (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  order_id TEXT NOT NULL,
  amount_cents INTEGER NOT NULL
);
