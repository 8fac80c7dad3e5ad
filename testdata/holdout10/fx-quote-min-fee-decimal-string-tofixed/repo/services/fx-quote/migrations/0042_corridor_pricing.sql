CREATE TABLE IF NOT EXISTS corridor_pricing (
  corridor    STRING PRIMARY KEY,
  margin_bps  INT8 NOT NULL,
  fee_pct     DECIMAL(6,5) NOT NULL,
  min_fee     DECIMAL(10,2) NOT NULL,
  active      BOOL NOT NULL DEFAULT true,
  updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

INSERT INTO corridor_pricing (corridor, margin_bps, fee_pct, min_fee) VALUES
  ('GB-NG', 85, 0.005, 1.99), ('GB-KE', 85, 0.005, 1.99), ('DE-TR', 70, 0.004, 1.49),
  ('FR-MA', 70, 0.004, 1.49), ('GB-IN', 60, 0.003, 0.99), ('ES-CO', 90, 0.006, 2.49)
ON CONFLICT (corridor) DO NOTHING;
