package com.fernhill.pricing.discount

import com.fernhill.pricing.model.Segment
import org.springframework.jdbc.core.simple.JdbcClient
import org.springframework.stereotype.Repository
import java.math.BigDecimal
import java.time.Clock
import java.time.Duration
import java.time.Instant

data class Tier(val minQuantity: Int, val percentOff: BigDecimal)

data class TierTable(val segment: Segment, val tiers: List<Tier>, val maxDiscountPerLine: BigDecimal)

@Repository
class TierTableRepository(
    private val jdbc: JdbcClient,
    private val clock: Clock,
) {
    @Volatile
    private var cached: Map<Segment, TierTable> = emptyMap()

    @Volatile
    private var loadedAt: Instant = Instant.EPOCH

    /** Tables that exist in pricing.tier_tables; segments without a row have no table. */
    fun tablesBySegment(): Map<Segment, TierTable> {
        if (Duration.between(loadedAt, clock.instant()) > TTL) {
            cached = load()
            loadedAt = clock.instant()
        }
        return cached
    }

    private fun load(): Map<Segment, TierTable> =
        jdbc.sql(
            """
            SELECT t.segment, t.max_discount_per_line, r.min_quantity, r.percent_off
              FROM pricing.tier_tables t
              JOIN pricing.tier_rows r ON r.table_id = t.id
             WHERE t.active
            """.trimIndent(),
        ).query { rs, _ ->
            Triple(
                Segment.valueOf(rs.getString("segment")),
                rs.getBigDecimal("max_discount_per_line"),
                Tier(rs.getInt("min_quantity"), rs.getBigDecimal("percent_off")),
            )
        }.list()
            .groupBy({ it.first to it.second }, { it.third })
            .map { (key, tiers) -> TierTable(key.first, tiers, key.second) }
            .associateBy { it.segment }

    private companion object {
        val TTL: Duration = Duration.ofMinutes(5)
    }
}
