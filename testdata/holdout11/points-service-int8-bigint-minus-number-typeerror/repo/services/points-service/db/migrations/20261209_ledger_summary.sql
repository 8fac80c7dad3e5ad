-- Materialised running totals so balance reads stop summing ledger_entries.
CREATE TABLE ledger_summary (
  user_id        uuid PRIMARY KEY,
  balance_points bigint NOT NULL DEFAULT 0,
  tier           text   NOT NULL DEFAULT 'green',
  updated_at     timestamptz NOT NULL DEFAULT now()
);
