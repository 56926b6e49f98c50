-- Two reminders due: the hourly job sends each once and marks it sent.
CREATE TABLE reminders (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL,
  sent_at INTEGER
);
INSERT INTO reminders (id, email, sent_at) VALUES ('r-1', 'ada@example.com', NULL);
INSERT INTO reminders (id, email, sent_at) VALUES ('r-2', 'bob@example.com', NULL);
