package com.encore.seathold.metrics

import io.micrometer.core.instrument.MeterRegistry

class HoldMetrics(private val registry: MeterRegistry) {
    fun retry(e: Throwable) =
        registry.counter("seat_hold_retries", "exception", e.javaClass.simpleName).increment()
}
