-- The log the cron differential case writes: one row per tick attempt, and a row per tick that finished.
CREATE TABLE attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  scheduled_time INTEGER NOT NULL,
  cron TEXT NOT NULL,
  note TEXT NOT NULL
);
CREATE TABLE done (
  scheduled_time INTEGER PRIMARY KEY,
  attempt INTEGER NOT NULL
);
