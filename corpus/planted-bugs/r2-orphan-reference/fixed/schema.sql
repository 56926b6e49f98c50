-- One row per uploaded file; r2_key names its body in the FILES bucket.
CREATE TABLE files (id TEXT PRIMARY KEY, r2_key TEXT NOT NULL, size INTEGER NOT NULL);
-- A file uploaded before the scenario starts; the scenario seeds its body in FILES.
INSERT INTO files (id, r2_key, size) VALUES ('f-0', 'files/f-0', 5);
