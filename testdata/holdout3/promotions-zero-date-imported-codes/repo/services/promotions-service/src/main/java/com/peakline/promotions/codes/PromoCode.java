package com.peakline.promotions.codes;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.math.BigDecimal;
import java.time.LocalDateTime;

@Entity
@Table(name = "promo_codes")
public class PromoCode {

    @Id
    private Long id;

    @Column(nullable = false, unique = true)
    private String code;

    @Enumerated(EnumType.STRING)
    private DiscountType discountType;

    private BigDecimal discountValue;

    private BigDecimal minCartTotal;

    @Column(name = "starts_at")
    private LocalDateTime startsAt;

    /** Null means the code never expires. */
    @Column(name = "ends_at")
    private LocalDateTime endsAt;

    private Integer maxRedemptions;

    private String campaign;

    public boolean isActiveAt(LocalDateTime now) {
        return !now.isBefore(startsAt) && (endsAt == null || now.isBefore(endsAt));
    }

    public Long getId() { return id; }
    public String getCode() { return code; }
    public DiscountType getDiscountType() { return discountType; }
    public BigDecimal getDiscountValue() { return discountValue; }
    public BigDecimal getMinCartTotal() { return minCartTotal; }
    public LocalDateTime getEndsAt() { return endsAt; }
    public String getCampaign() { return campaign; }
}
