package com.fernhill.pricing.model

/** Account segments as stored in accounts.segment. */
enum class Segment {
    RETAIL,
    PRO,
    WHOLESALE,
    EDU,
    NONPROFIT,
}
