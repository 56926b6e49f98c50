-- One row per message a delivery attempt processed.
CREATE TABLE seen (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  message_key TEXT NOT NULL,
  attempt INTEGER NOT NULL
);
