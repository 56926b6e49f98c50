-- One row per order paid; a redelivered message records nothing twice.
CREATE TABLE payments (
  order_id TEXT PRIMARY KEY,
  amount_cents INTEGER NOT NULL
);
