-- One order, paid 15.00, nothing refunded yet: two partial refunds of it arrive at once.
CREATE TABLE orders (
  id TEXT PRIMARY KEY,
  total_cents INTEGER NOT NULL,
  refunded_cents INTEGER NOT NULL
);
INSERT INTO orders (id, total_cents, refunded_cents) VALUES ('o-1', 1500, 0);
