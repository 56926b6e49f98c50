CREATE TABLE orders (
  idempotency_key TEXT PRIMARY KEY,
  sku TEXT NOT NULL,
  quantity INTEGER NOT NULL CHECK (quantity > 0)
);
