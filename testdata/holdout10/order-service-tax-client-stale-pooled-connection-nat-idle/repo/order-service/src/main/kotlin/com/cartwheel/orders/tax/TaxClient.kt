package com.cartwheel.orders.tax

import org.apache.hc.client5.http.classic.methods.HttpPost
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient
import org.apache.hc.core5.http.io.entity.StringEntity
import org.springframework.stereotype.Component

@Component
class TaxClient(private val http: CloseableHttpClient, private val props: TaxProperties) {
    fun quote(req: TaxQuoteRequest): TaxQuote {
        val post = HttpPost("${props.baseUrl}/v2/transactions/quote")
        post.entity = StringEntity(mapper.writeValueAsString(req), ContentType.APPLICATION_JSON)
        post.setHeader("Authorization", "Bearer ${props.apiKey}")
        return http.execute(post) { resp -> parse(resp) }
    }
}
