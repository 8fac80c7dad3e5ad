package com.tidewater.inventory

import java.time.Instant

/** Event items (seasonal cosmetics) disappear at the end of their event. */
object ItemExpiry {
  def expired(inv: Inventory, now: Instant): List[String] =
    inv.items.collect { case (id, item) if item.expiresAt.exists(_.isBefore(now)) => id }.toList

  def sweepIntervalMinutes: Int = 15
}
