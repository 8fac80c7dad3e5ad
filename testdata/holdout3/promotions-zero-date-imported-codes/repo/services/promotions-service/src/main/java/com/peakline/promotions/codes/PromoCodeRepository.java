package com.peakline.promotions.codes;

import java.time.LocalDateTime;
import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;

public interface PromoCodeRepository extends JpaRepository<PromoCode, Long> {

    Optional<PromoCode> findByCodeIgnoreCase(String code);

    @Query("select p from PromoCode p where p.startsAt <= :now and (p.endsAt is null or p.endsAt > :now)")
    List<PromoCode> findActive(LocalDateTime now);
}
