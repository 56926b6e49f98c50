CREATE TABLE payments (
  order_id TEXT PRIMARY KEY,
  amount_cents INTEGER NOT NULL
);
