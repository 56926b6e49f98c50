-- The ledger the rpc differential case writes: one row per credit or debit.
CREATE TABLE entries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account TEXT NOT NULL,
  cents INTEGER NOT NULL
);
