package com.staylio.loyalty.tiers

import org.springframework.boot.context.event.ApplicationReadyEvent
import org.springframework.context.event.EventListener
import org.springframework.stereotype.Component

/**
 * Loads the tier of the most active members into the local cache at startup so the
 * first minutes after a rollout do not all go to Postgres.
 */
@Component
class TierWarmup(private val repo: MemberTierRepository, private val cache: TierCache) {

    @EventListener(ApplicationReadyEvent::class)
    fun warm() {
        repo.mostActive(limit = 50_000).forEach { cache.put(it.memberId, it.tier) }
    }
}
