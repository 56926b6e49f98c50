CREATE TABLE answers (profile TEXT NOT NULL, member TEXT NOT NULL, answer TEXT NOT NULL);
