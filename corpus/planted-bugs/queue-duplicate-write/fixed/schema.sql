-- One row per order: the order id is the key, so a second insert cannot add a row.
CREATE TABLE payments (
  order_id TEXT PRIMARY KEY,
  amount_cents INTEGER NOT NULL
);
