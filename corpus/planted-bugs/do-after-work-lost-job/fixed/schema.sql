-- One row per job the runner recorded; `noted` is set by the follow-up after the answer.
CREATE TABLE jobs (
  job_id TEXT PRIMARY KEY,
  task TEXT NOT NULL,
  noted INTEGER NOT NULL DEFAULT 0
);
