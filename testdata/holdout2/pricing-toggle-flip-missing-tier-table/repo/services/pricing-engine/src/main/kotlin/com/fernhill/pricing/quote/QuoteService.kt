package com.fernhill.pricing.quote

import com.fernhill.pricing.discount.LegacyDiscountCalculator
import com.fernhill.pricing.discount.TieredDiscountCalculator
import com.fernhill.pricing.flags.FeatureFlags
import com.fernhill.pricing.model.Account
import com.fernhill.pricing.model.Money
import com.fernhill.pricing.model.Quote
import com.fernhill.pricing.model.QuoteLine
import com.fernhill.pricing.model.QuoteRequest
import com.fernhill.pricing.model.PricedLine
import com.fernhill.pricing.tax.TaxClient
import io.micrometer.core.instrument.MeterRegistry
import io.opentelemetry.instrumentation.annotations.WithSpan
import org.slf4j.LoggerFactory
import org.springframework.stereotype.Service

@Service
class QuoteService(
    private val accounts: AccountRepository,
    private val catalog: CatalogPriceRepository,
    private val legacy: LegacyDiscountCalculator,
    private val tiered: TieredDiscountCalculator,
    private val flags: FeatureFlags,
    private val tax: TaxClient,
    meters: MeterRegistry,
) {
    private val log = LoggerFactory.getLogger(javaClass)
    private val quotes = meters.counter("pricing.quotes")

    @WithSpan
    fun quote(request: QuoteRequest): Quote {
        val account = accounts.byId(request.accountId)
            ?: throw UnknownAccountException(request.accountId)
        val prices = catalog.unitPrices(request.lines.map { it.sku }, request.currency)

        val lines = request.lines.map { req ->
            val line = QuoteLine(
                sku = req.sku,
                quantity = req.quantity,
                unitPrice = prices[req.sku] ?: throw UnknownSkuException(req.sku),
            )
            priceLine(line, account)
        }
        val subtotal = lines.fold(Money.zero(request.currency)) { acc, l -> acc + l.net }
        val taxes = tax.estimate(account.billingAddress, subtotal)
        quotes.increment()
        log.debug("quoted {} lines for account {} ({})", lines.size, account.id, account.segment)
        return Quote(request.accountId, lines, subtotal, taxes, subtotal + taxes)
    }

    private fun priceLine(line: QuoteLine, account: Account): PricedLine {
        val calculator = if (flags.isEnabled(TIERED_DISCOUNTS, account)) tiered else legacy
        val discount = calculator.discountFor(line, account)
        val gross = line.unitPrice * line.quantity
        return PricedLine(line.sku, line.quantity, gross, discount, gross - discount, calculator.name)
    }

    companion object {
        const val TIERED_DISCOUNTS = "pricing.tiered-volume-discounts"
    }
}
