-- One row per order the queue consumer recorded.
CREATE TABLE orders (
  order_id TEXT PRIMARY KEY,
  amount_cents INTEGER NOT NULL
);
