package com.kestrel.ledger.event;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * card.authorizations.v1 as published by card-auth (schema owner: team-authorizations).
 * The topic contract is additive: new optional fields may appear at any time.
 */
public record AuthorizationEvent(
        String authId,
        String cardId,
        String accountId,
        BigDecimal amount,
        String currency,
        String merchantName,
        String mcc,
        String entryMode,
        Status status,
        Instant authorizedAt,
        Instant expiresAt,
        String wallet) {

    public enum Status { APPROVED, DECLINED, PARTIAL }
}
