ALTER TABLE orders ADD COLUMN idempotency_key text;
CREATE UNIQUE INDEX CONCURRENTLY orders_idempotency_key_key ON orders (idempotency_key);
