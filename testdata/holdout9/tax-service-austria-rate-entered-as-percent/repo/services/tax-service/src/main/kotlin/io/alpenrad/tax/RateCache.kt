package io.alpenrad.tax

import org.slf4j.LoggerFactory
import java.math.BigDecimal

class RateCache(private val repo: TaxRateRepository) {
    private val log = LoggerFactory.getLogger(RateCache::class.java)
    @Volatile private var rates: Map<Pair<String, String>, BigDecimal> = emptyMap()

    fun reload() {
        val rows = repo.findAllActive()
        rates = rows.associate { (it.country to it.category) to it.rate }
        log.info("tax rates reloaded: {} rates, {}", rows.size,
            rows.filter { it.category == "standard" }.joinToString(" ") { "${it.country}=${it.rate}" })
    }

    fun rate(country: String, category: String): BigDecimal? = rates[country to category]
}
