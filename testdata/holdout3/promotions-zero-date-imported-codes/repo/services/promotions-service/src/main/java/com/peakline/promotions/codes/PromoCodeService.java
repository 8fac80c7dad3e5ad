package com.peakline.promotions.codes;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Optional;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@Service
public class PromoCodeService {

    private final PromoCodeRepository repository;
    private final RedemptionRepository redemptions;
    private final Clock clock;
    private final Cache<String, List<PromoCode>> activeCache = Caffeine.newBuilder()
            .expireAfterWrite(Duration.ofSeconds(30))
            .build();

    public PromoCodeService(PromoCodeRepository repository, RedemptionRepository redemptions, Clock clock) {
        this.repository = repository;
        this.redemptions = redemptions;
        this.clock = clock;
    }

    @Transactional(readOnly = true)
    public ValidationResult validate(String code, BigDecimal cartTotal) {
        Optional<PromoCode> found = repository.findByCodeIgnoreCase(code.trim());
        if (found.isEmpty()) {
            return ValidationResult.rejected("UNKNOWN_CODE");
        }
        PromoCode promo = found.get();
        LocalDateTime now = LocalDateTime.now(clock);
        if (!promo.isActiveAt(now)) {
            return ValidationResult.rejected("EXPIRED");
        }
        if (promo.getMinCartTotal() != null && cartTotal.compareTo(promo.getMinCartTotal()) < 0) {
            return ValidationResult.rejected("CART_TOTAL_TOO_LOW");
        }
        if (redemptions.isExhausted(promo)) {
            return ValidationResult.rejected("EXHAUSTED");
        }
        return ValidationResult.accepted(promo);
    }

    /** Banner and PLP badges: active promotions, cached for 30 s (PRM-208). */
    @Transactional(readOnly = true)
    public List<PromoCode> active() {
        return activeCache.get("all", k -> repository.findActive(LocalDateTime.now(clock)));
    }
}
