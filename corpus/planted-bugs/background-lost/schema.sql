-- One row per order the Worker accepted.
CREATE TABLE orders (
  order_id TEXT PRIMARY KEY,
  amount_cents INTEGER NOT NULL
);
