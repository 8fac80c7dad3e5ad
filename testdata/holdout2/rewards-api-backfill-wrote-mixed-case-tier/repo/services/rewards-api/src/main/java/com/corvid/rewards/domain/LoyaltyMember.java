package com.corvid.rewards.domain;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.UUID;

@Entity
@Table(name = "loyalty_members")
public class LoyaltyMember {

    @Id
    private UUID id;

    @Column(name = "customer_id", nullable = false, unique = true)
    private String customerId;

    @Enumerated(EnumType.STRING)
    @Column(name = "tier", nullable = false, length = 16)
    private Tier tier;

    @Column(name = "stars", nullable = false)
    private long stars;

    @Column(name = "visits_12m", nullable = false)
    private int visits12m;

    @Column(name = "tier_since")
    private Instant tierSince;

    protected LoyaltyMember() {
    }

    public UUID getId() { return id; }
    public String getCustomerId() { return customerId; }
    public Tier getTier() { return tier; }
    public long getStars() { return stars; }
    public int getVisits12m() { return visits12m; }
    public Instant getTierSince() { return tierSince; }
}
