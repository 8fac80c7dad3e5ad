package com.kestrel.cpoe.orders.client

import org.springframework.beans.factory.annotation.Value
import org.springframework.stereotype.Component
import org.springframework.web.client.RestClient
import org.springframework.web.client.body

data class DoseCheckRequest(
    val orderRef: String,
    val drugCode: String,
    val dose: Double,
    val unit: String,
    val route: String,
    val frequencyPerDay: Int,
    val patientWeightKg: Double?,
)

data class DoseCheckFinding(val severity: String, val code: String, val message: String)

data class DoseCheckResponse(val allowed: Boolean, val findings: List<DoseCheckFinding>)

@Component
class DoseCheckClient(
    builder: RestClient.Builder,
    @Value("\${cpoe.dose-check.base-url}") baseUrl: String,
) {
    private val client = builder.baseUrl(baseUrl).build()

    fun check(req: DoseCheckRequest): DoseCheckResponse =
        client.post().uri("/v1/dose-checks").body(req).retrieve().body<DoseCheckResponse>()
            ?: error("empty dose-check response")
}
