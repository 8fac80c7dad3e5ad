package io.alpenrad.tax

import java.math.BigDecimal
import java.math.RoundingMode

/** Rates come from the tax_rates table (edited by finance in the admin UI), reloaded every 5 minutes. */
class TaxCalculator(private val rates: RateCache) {
    fun vatFor(country: String, category: String, net: BigDecimal): BigDecimal {
        val rate = rates.rate(country, category)
            ?: throw UnknownRateException("no VAT rate for $country/$category")
        return net.multiply(rate).setScale(2, RoundingMode.HALF_EVEN)
    }
}
