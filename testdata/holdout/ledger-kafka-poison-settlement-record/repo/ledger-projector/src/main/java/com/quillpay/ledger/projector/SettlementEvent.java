package com.quillpay.ledger.projector;

import java.math.BigDecimal;
import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** One line of an acquirer settlement file, as published by settlement-importer. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SettlementEvent(
        String settlementId,
        String acquirer,
        String merchantId,
        String currency,
        BigDecimal grossAmount,
        BigDecimal feeAmount,
        Instant settledAt) {
}
