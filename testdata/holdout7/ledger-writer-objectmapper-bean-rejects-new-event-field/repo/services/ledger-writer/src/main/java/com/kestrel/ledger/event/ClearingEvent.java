package com.kestrel.ledger.event;

import java.math.BigDecimal;
import java.time.Instant;

public record ClearingEvent(String authId, String accountId, BigDecimal amount, String currency, Instant clearedAt) {
}
