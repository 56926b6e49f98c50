CREATE TABLE stock (sku TEXT PRIMARY KEY, qty INTEGER NOT NULL);
CREATE TABLE reservations (reservation_id TEXT PRIMARY KEY, order_id TEXT NOT NULL, sku TEXT NOT NULL, qty INTEGER NOT NULL, region TEXT NOT NULL);
INSERT INTO stock (sku, qty) VALUES ('widget', 5), ('bolt', 9);
