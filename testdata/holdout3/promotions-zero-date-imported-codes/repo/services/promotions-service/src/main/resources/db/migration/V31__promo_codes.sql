-- V31__promo_codes.sql
CREATE TABLE promo_codes (
    id               BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY,
    code             VARCHAR(40)   NOT NULL,
    discount_type    VARCHAR(16)   NOT NULL,
    discount_value   DECIMAL(10,2) NOT NULL,
    min_cart_total   DECIMAL(10,2) NULL,
    starts_at        DATETIME      NOT NULL,
    ends_at          DATETIME      NULL,
    max_redemptions  INT           NULL,
    campaign         VARCHAR(64)   NULL,
    import_batch     VARCHAR(32)   NULL,
    created_at       DATETIME      NOT NULL DEFAULT CURRENT_TIMESTAMP,
    UNIQUE KEY uk_promo_codes_code (code)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
