-- The catalogue holds 2 GiB of a 5 GiB quota: one more 2 GiB upload fits, two do not.
CREATE TABLE documents (
  id TEXT PRIMARY KEY,
  size INTEGER NOT NULL
);
INSERT INTO documents (id, size) VALUES ('d-0', 2147483648);
