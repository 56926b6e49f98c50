-- Customers, their orders and each order's lines: deleting a customer deletes
-- its orders, and deleting an order its lines (ON DELETE CASCADE).
CREATE TABLE customers (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL
);

CREATE TABLE orders (
  id TEXT PRIMARY KEY,
  customer_id TEXT NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
  amount_cents INTEGER NOT NULL
);

CREATE TABLE order_lines (
  order_id TEXT NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
  line INTEGER NOT NULL,
  sku TEXT NOT NULL,
  PRIMARY KEY (order_id, line)
);

-- What the consumer refused, with the error D1 gave.
CREATE TABLE rejections (
  message_id TEXT PRIMARY KEY,
  reason TEXT NOT NULL
);
