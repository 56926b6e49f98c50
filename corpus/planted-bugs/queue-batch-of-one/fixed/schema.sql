-- One row per charge made. A message is charged at most once (message_id); an order is
-- meant to be charged at most once too, which the consumer checks before it inserts.
CREATE TABLE charges (
  message_id TEXT PRIMARY KEY,
  order_id TEXT NOT NULL,
  amount_cents INTEGER NOT NULL
);
