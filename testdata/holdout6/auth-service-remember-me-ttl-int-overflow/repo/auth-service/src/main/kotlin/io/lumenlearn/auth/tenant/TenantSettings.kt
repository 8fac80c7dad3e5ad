package io.lumenlearn.auth.tenant

import org.springframework.boot.context.properties.ConfigurationProperties

@ConfigurationProperties(prefix = "lumen.tenants")
data class TenantSettings(
    val defaults: Defaults = Defaults(),
    val overrides: Map<String, Override> = emptyMap(),
) {
    data class Defaults(val rememberMeDays: Int = 14, val mfaRequired: Boolean = false)
    data class Override(val rememberMeDays: Int? = null, val mfaRequired: Boolean? = null)

    fun rememberMeDays(tenantId: String): Int = overrides[tenantId]?.rememberMeDays ?: defaults.rememberMeDays
}
