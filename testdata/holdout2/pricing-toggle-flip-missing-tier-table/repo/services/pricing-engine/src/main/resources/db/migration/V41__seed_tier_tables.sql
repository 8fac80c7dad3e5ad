-- Tier tables for the tiered volume discount rollout (toggle pricing.tiered-volume-discounts).
-- Percentages agreed with Commercial on 2026-11-28 (PRICING-388).

INSERT INTO pricing.tier_tables (id, segment, max_discount_per_line, active) VALUES
    (1, 'RETAIL',    150.00, true),
    (2, 'PRO',       400.00, true),
    (3, 'WHOLESALE', 2500.00, true);

INSERT INTO pricing.tier_rows (table_id, min_quantity, percent_off) VALUES
    (1,   5, 2.0),
    (1,  20, 3.5),
    (2,  10, 3.0),
    (2,  50, 6.0),
    (3,  20, 4.0),
    (3, 100, 9.0),
    (3, 500, 12.5);
