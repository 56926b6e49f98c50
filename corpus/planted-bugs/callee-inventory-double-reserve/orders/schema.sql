CREATE TABLE orders (
  order_id TEXT PRIMARY KEY,
  sku TEXT NOT NULL,
  qty INTEGER NOT NULL,
  reservation_id TEXT NOT NULL
);
