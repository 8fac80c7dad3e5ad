package com.corvid.portal.renewal;

import java.math.BigDecimal;
import java.math.RoundingMode;

import org.springframework.stereotype.Service;

import com.corvid.portal.quote.QuoteEngineClient;
import com.corvid.portal.quote.RenewalQuote;

@Service
public class RenewalService {

    private final QuoteEngineClient quoteEngine;

    public RenewalService(QuoteEngineClient quoteEngine) {
        this.quoteEngine = quoteEngine;
    }

    public RenewalOffer offer(String policyId) {
        RenewalQuote quote = quoteEngine.renewalQuote(policyId);
        // Monthly instalments are rounded per instalment, the annual premium is their sum,
        // so the two totals shown on the renewal page always agree (INC-2231).
        BigDecimal monthly = quote.annualPremium()
                .divide(BigDecimal.valueOf(12), 2, RoundingMode.HALF_EVEN);
        BigDecimal annual = monthly.multiply(BigDecimal.valueOf(12));
        return new RenewalOffer(policyId, annual, monthly, quote.validUntil());
    }
}
