CREATE TABLE sku_prices (
    sku         VARCHAR(16) PRIMARY KEY,
    unit_price  NUMERIC(10, 2),
    currency    CHAR(3) NOT NULL DEFAULT 'EUR',
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
