package com.fernhill.pricing.discount

import com.fernhill.pricing.model.Account
import com.fernhill.pricing.model.Money
import com.fernhill.pricing.model.QuoteLine
import org.springframework.stereotype.Component
import java.math.BigDecimal
import java.math.RoundingMode

/**
 * Volume discounts by account segment: each segment has its own tier table
 * (see pricing.tier_tables), e.g. WHOLESALE gets 4% from 20 units, 9% from 100.
 *
 * Rolled out behind the Unleash toggle `pricing.tiered-volume-discounts`;
 * while the toggle is off, QuoteService keeps using LegacyDiscountCalculator.
 */
@Component
class TieredDiscountCalculator(
    private val tierTables: TierTableRepository,
) : DiscountCalculator {

    override val name = "tiered-volume"

    override fun discountFor(line: QuoteLine, account: Account): Money {
        if (line.quantity <= 0) {
            return Money.zero(line.unitPrice.currency)
        }
        // One table per segment, cached for five minutes by the repository.
        val table = tierTables.tablesBySegment()[account.segment]!!
        val tier = table.tiers
            .sortedBy { it.minQuantity }
            .lastOrNull { line.quantity >= it.minQuantity }
            ?: return Money.zero(line.unitPrice.currency)

        val gross = line.unitPrice.amount.multiply(BigDecimal(line.quantity))
        val off = gross.multiply(tier.percentOff).divide(HUNDRED, 2, RoundingMode.HALF_EVEN)
        return Money(off.min(table.maxDiscountPerLine), line.unitPrice.currency)
    }

    private companion object {
        val HUNDRED: BigDecimal = BigDecimal(100)
    }
}
