-- Speeds up the idempotency check on POST /v1/postings (LEDG-512).
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS postings_entry_id_uniq ON ledger.postings (entry_id);
