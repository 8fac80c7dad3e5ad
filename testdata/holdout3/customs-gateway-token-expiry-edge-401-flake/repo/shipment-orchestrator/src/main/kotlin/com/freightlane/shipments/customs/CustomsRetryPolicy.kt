package com.freightlane.shipments.customs

import java.time.Duration

/** Failed customs submissions are re-queued: 1 min, 5 min, 15 min, then a human looks (SHP-2210). */
object CustomsRetryPolicy {
    val delays: List<Duration> = listOf(Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(15))
    const val ALERT_AFTER_ATTEMPTS = 4
}
