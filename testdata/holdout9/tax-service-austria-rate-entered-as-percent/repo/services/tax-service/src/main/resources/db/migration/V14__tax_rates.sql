CREATE TABLE tax_rates (
    id          BIGSERIAL PRIMARY KEY,
    country     CHAR(2)      NOT NULL,
    category    VARCHAR(32)  NOT NULL,
    rate        NUMERIC(6,4) NOT NULL,  -- fraction: 0.2000 = 20 %
    valid_from  DATE         NOT NULL,
    updated_by  VARCHAR(64),
    updated_at  TIMESTAMPTZ  NOT NULL DEFAULT now()
);
