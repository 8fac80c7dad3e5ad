package com.encore.seathold.hold

import com.encore.seathold.db.SeatRepository
import com.encore.seathold.db.SeatsTakenException
import com.encore.seathold.metrics.HoldMetrics
import kotlinx.coroutines.withTimeout
import org.slf4j.LoggerFactory
import java.time.Duration

private val HOLD_BUDGET = Duration.ofMillis(1500)
private val HOLD_TTL = Duration.ofMinutes(8)

class HoldService(
    private val repo: SeatRepository,
    private val metrics: HoldMetrics,
) {
    private val log = LoggerFactory.getLogger(HoldService::class.java)

    /**
     * Holds [HoldRequest.seatIds] for the buyer's session. Transient database
     * failures (lock timeouts, serialization failures) are retried within the
     * hold budget; seats already taken are reported to the buyer immediately.
     */
    suspend fun hold(req: HoldRequest): Hold = withTimeout(HOLD_BUDGET.toMillis()) {
        var attempt = 0
        while (true) {
            attempt++
            try {
                return@withTimeout repo.holdSeats(req.eventId, req.seatIds, req.sessionId, HOLD_TTL)
            } catch (e: SeatsTakenException) {
                throw e
            } catch (e: Exception) {
                metrics.retry(e)
                log.warn("hold attempt {} for event {} failed, retrying: {}", attempt, req.eventId, e.toString())
            }
        }
        @Suppress("UNREACHABLE_CODE")
        error("unreachable")
    }

    suspend fun release(holdId: String) = repo.release(holdId)
}
