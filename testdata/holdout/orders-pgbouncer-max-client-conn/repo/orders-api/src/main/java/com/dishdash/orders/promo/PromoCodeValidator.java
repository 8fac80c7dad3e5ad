package com.dishdash.orders.promo;

import java.time.Clock;
import java.time.Instant;

import org.springframework.stereotype.Component;

@Component
public class PromoCodeValidator {

    private final PromoRepository promos;
    private final Clock clock;

    public PromoCodeValidator(PromoRepository promos, Clock clock) {
        this.promos = promos;
        this.clock = clock;
    }

    public PromoResult validate(String code, long customerId, long subtotalCents) {
        if (code == null || code.isBlank()) {
            return PromoResult.none();
        }
        Promo promo = promos.findActiveByCode(code.trim().toUpperCase()).orElse(null);
        if (promo == null || promo.expiresAt().isBefore(Instant.now(clock))) {
            return PromoResult.rejected("unknown_or_expired");
        }
        if (subtotalCents < promo.minimumSubtotalCents()) {
            return PromoResult.rejected("below_minimum");
        }
        if (promo.firstOrderOnly() && promos.customerHasOrders(customerId)) {
            return PromoResult.rejected("first_order_only");
        }
        return PromoResult.applied(promo);
    }
}
