CREATE TABLE charges (order_id TEXT PRIMARY KEY, cents INTEGER NOT NULL);
CREATE TABLE shipments (order_id TEXT PRIMARY KEY, charge_id TEXT NOT NULL);
