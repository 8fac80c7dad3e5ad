package io.lumenlearn.auth.session

import io.lumenlearn.auth.tenant.TenantSettings
import org.springframework.data.redis.core.StringRedisTemplate
import org.springframework.stereotype.Service
import java.security.SecureRandom
import java.util.Base64
import java.util.concurrent.TimeUnit

@Service
class RememberMeService(
    private val redis: StringRedisTemplate,
    private val tenants: TenantSettings,
) {
    private val random = SecureRandom()

    /** Issues a long-lived remember-me token; its lifetime is configured per tenant (default 14 days). */
    fun issue(userId: String, tenantId: String): String {
        val token = newToken()
        val days = tenants.rememberMeDays(tenantId)
        val ttlMillis = days * 24 * 60 * 60 * 1000
        redis.opsForValue().set("rm:$token", userId, ttlMillis.toLong(), TimeUnit.MILLISECONDS)
        return token
    }

    fun resolve(token: String): String? = redis.opsForValue().get("rm:$token")

    fun revoke(token: String) {
        redis.delete("rm:$token")
    }

    private fun newToken(): String {
        val bytes = ByteArray(32)
        random.nextBytes(bytes)
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes)
    }
}
