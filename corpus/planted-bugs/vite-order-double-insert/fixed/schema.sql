-- One row per order: order_id is the key, so a second insert for it changes nothing.
CREATE TABLE orders (
  order_id TEXT PRIMARY KEY,
  amount_cents INTEGER NOT NULL
);
