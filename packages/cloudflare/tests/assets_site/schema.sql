CREATE TABLE orders (path TEXT);
