INSERT INTO built (summary) VALUES (?)
