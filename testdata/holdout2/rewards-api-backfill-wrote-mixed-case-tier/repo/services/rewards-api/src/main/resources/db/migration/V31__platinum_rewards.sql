-- PLATINUM tier (REW-210). Members are moved by the one-off backfill in
-- docs/runbooks/platinum-backfill.md, then by the nightly tier job.
INSERT INTO reward_catalog (code, min_tier, stars_cost, title) VALUES
    ('PLAT-FREE-DRINK', 'PLATINUM', 0, 'Monthly free drink'),
    ('PLAT-DOUBLE-STARS', 'PLATINUM', 0, 'Double stars on every visit');
