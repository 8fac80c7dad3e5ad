-- Standard VAT rates of EU member states. Exports outside the EU are zero-rated
-- and have no row here (see finance wiki "Ausfuhrlieferungen").
CREATE TABLE tax.vat_rates (
    country_code  CHAR(2)       NOT NULL,
    standard_rate DECIMAL(5, 4) NOT NULL,
    valid_from    DATE          NOT NULL,
    valid_to      DATE          NULL,
    CONSTRAINT pk_vat_rates PRIMARY KEY (country_code, valid_from)
);
