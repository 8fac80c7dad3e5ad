package com.kestrel.balance;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;
import org.springframework.stereotype.Service;

@Service
public class BalanceService {

    private final BalanceRepository repository;
    // The app polls every 2s while the card screen is open; 5s is invisible to users
    // and takes ~70% of the read load off ledger-db.
    private final Cache<String, Balance> cache = Caffeine.newBuilder()
            .expireAfterWrite(Duration.ofSeconds(5))
            .maximumSize(200_000)
            .build();

    public BalanceService(BalanceRepository repository) {
        this.repository = repository;
    }

    public Balance available(String accountId) {
        return cache.get(accountId, repository::findAvailable);
    }
}
