package com.harbormutual.claims.intake;

import java.math.BigDecimal;

/** Routes new claims to straight-through processing or to a handler. */
public final class TriagePolicy {

    /** Claims scoring above this go to a human handler (CLM-3310: was 0.72). */
    static final double FRAUD_REVIEW_THRESHOLD = 0.65;
    static final BigDecimal STP_MAX_AMOUNT = new BigDecimal("2500.00");

    public Route route(Claim claim, double fraudScore) {
        if (fraudScore >= FRAUD_REVIEW_THRESHOLD) {
            return Route.HANDLER_REVIEW;
        }
        if (claim.amount().compareTo(STP_MAX_AMOUNT) > 0) {
            return Route.HANDLER_REVIEW;
        }
        return Route.STRAIGHT_THROUGH;
    }
}
