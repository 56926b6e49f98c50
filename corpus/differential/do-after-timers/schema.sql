-- One row per job a runner finished, written from inside the object after its answer.
CREATE TABLE audit (job TEXT PRIMARY KEY, runner TEXT NOT NULL, steps INTEGER NOT NULL);
