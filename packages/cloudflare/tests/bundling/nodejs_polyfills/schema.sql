CREATE TABLE built (summary TEXT);
