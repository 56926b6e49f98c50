-- The ledger: one row per credit; a transfer is credited once.
CREATE TABLE entries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  transfer_id TEXT NOT NULL UNIQUE,
  account_id TEXT NOT NULL,
  amount_cents INTEGER NOT NULL
);
