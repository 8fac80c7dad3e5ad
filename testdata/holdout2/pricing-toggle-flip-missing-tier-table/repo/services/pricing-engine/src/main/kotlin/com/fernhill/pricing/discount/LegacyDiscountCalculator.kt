package com.fernhill.pricing.discount

import com.fernhill.pricing.model.Account
import com.fernhill.pricing.model.Money
import com.fernhill.pricing.model.QuoteLine
import org.springframework.stereotype.Component
import java.math.BigDecimal
import java.math.RoundingMode

/** Flat percentage per account, from accounts.contract_discount_pct (0 when unset). */
@Component
class LegacyDiscountCalculator : DiscountCalculator {

    override val name = "legacy-flat"

    override fun discountFor(line: QuoteLine, account: Account): Money {
        val pct = account.contractDiscountPct ?: return Money.zero(line.unitPrice.currency)
        val gross = line.unitPrice.amount.multiply(BigDecimal(line.quantity))
        return Money(gross.multiply(pct).divide(BigDecimal(100), 2, RoundingMode.HALF_EVEN), line.unitPrice.currency)
    }
}
