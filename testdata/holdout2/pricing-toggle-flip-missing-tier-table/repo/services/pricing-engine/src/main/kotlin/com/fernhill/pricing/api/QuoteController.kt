package com.fernhill.pricing.api

import com.fernhill.pricing.model.Quote
import com.fernhill.pricing.model.QuoteRequest
import com.fernhill.pricing.quote.QuoteService
import jakarta.validation.Valid
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.RequestBody
import org.springframework.web.bind.annotation.RequestMapping
import org.springframework.web.bind.annotation.RestController

@RestController
@RequestMapping("/api/v2/quotes")
class QuoteController(private val quotes: QuoteService) {

    @PostMapping
    fun createQuote(@Valid @RequestBody request: QuoteRequest): Quote =
        quotes.quote(request)
}
