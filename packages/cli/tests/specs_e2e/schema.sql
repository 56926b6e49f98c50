CREATE TABLE orders (
  id TEXT PRIMARY KEY,
  total_cents INTEGER NOT NULL,
  refunded_cents INTEGER NOT NULL,
  reference TEXT
);
INSERT INTO orders (id, total_cents, refunded_cents) VALUES ('o-1', 1500, 0);
INSERT INTO orders (id, total_cents, refunded_cents) VALUES ('o-2', 900, 0);
