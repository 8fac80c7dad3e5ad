package com.corvid.rewards.domain;

/**
 * Loyalty tiers, stored by name in loyalty_members.tier.
 * Star multipliers: BRONZE 1x, SILVER 1.25x, GOLD 1.5x, PLATINUM 2x.
 */
public enum Tier {
    BRONZE(1.0),
    SILVER(1.25),
    GOLD(1.5),
    PLATINUM(2.0);

    private final double starMultiplier;

    Tier(double starMultiplier) {
        this.starMultiplier = starMultiplier;
    }

    public double starMultiplier() {
        return starMultiplier;
    }
}
