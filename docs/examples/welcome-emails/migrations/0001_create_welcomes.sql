-- Migration number: 0001: one row per welcome email sent.
CREATE TABLE welcomes (
  signup_id TEXT PRIMARY KEY,
  email TEXT NOT NULL,
  sent_at TEXT NOT NULL
);
