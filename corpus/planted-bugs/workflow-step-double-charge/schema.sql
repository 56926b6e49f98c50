CREATE TABLE charges (order_id TEXT NOT NULL, cents INTEGER NOT NULL);
CREATE TABLE shipments (order_id TEXT PRIMARY KEY, charge_id INTEGER NOT NULL);
