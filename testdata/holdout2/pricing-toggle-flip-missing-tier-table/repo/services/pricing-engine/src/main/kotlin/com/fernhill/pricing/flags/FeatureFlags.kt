package com.fernhill.pricing.flags

import com.fernhill.pricing.model.Account
import io.getunleash.DefaultUnleash
import io.getunleash.UnleashContext
import io.getunleash.event.UnleashSubscriber
import io.getunleash.repository.FeatureToggleResponse
import io.getunleash.util.UnleashConfig
import org.slf4j.LoggerFactory
import org.springframework.beans.factory.annotation.Value
import org.springframework.stereotype.Component

/**
 * Unleash client. Toggles are fetched every 15 s; a toggle flipped in the
 * Unleash UI takes effect here without a deploy.
 */
@Component
class FeatureFlags(
    @Value("\${unleash.url}") url: String,
    @Value("\${unleash.api-token}") token: String,
    @Value("\${spring.application.name}") appName: String,
) {
    private val log = LoggerFactory.getLogger(javaClass)
    private var known: Map<String, Boolean> = emptyMap()

    private val unleash = DefaultUnleash(
        UnleashConfig.builder()
            .appName(appName)
            .instanceId(System.getenv("HOSTNAME") ?: appName)
            .unleashAPI(url)
            .apiKey(token)
            .fetchTogglesInterval(15)
            .subscriber(object : UnleashSubscriber {
                override fun togglesFetched(response: FeatureToggleResponse) {
                    if (response.status != FeatureToggleResponse.Status.CHANGED) return
                    val now = response.toggleCollection.features.associate { it.name to it.isEnabled }
                    now.filter { (name, enabled) -> known[name] != null && known[name] != enabled }
                        .forEach { (name, enabled) ->
                            log.info("feature toggle changed: {} enabled={} (was {})", name, enabled, known[name])
                        }
                    known = now
                }
            })
            .build(),
    )

    fun isEnabled(toggle: String, account: Account): Boolean =
        unleash.isEnabled(
            toggle,
            UnleashContext.builder()
                .userId(account.id)
                .addProperty("segment", account.segment.name)
                .build(),
        )
}
